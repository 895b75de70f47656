//! `p4c-bm2-ss` (or the `p4c` driver): a v1model program to BMv2 JSON and
//! P4Info.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::{Error, Tools};

/// What p4c wrote for one program.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The BMv2 JSON.
    pub json: PathBuf,
    /// The P4Info in protobuf text format.
    pub p4info: PathBuf,
    /// Every warning p4c printed.
    pub warnings: Vec<Warning>,
}

/// One p4c warning, e.g.
/// `constants.p4(38): [--Wwarn=unused] warning: 'FLAG_ECN' is unused`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The source file's name (without its folder).
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// The warning class (`unused`, `uninitialized-use`, ...).
    pub class: String,
    /// The message after `warning: `.
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: [{}] {}",
            self.file, self.line, self.class, self.message
        )
    }
}

/// Compiles `program` into `out_dir` (`<stem>.json`, `<stem>.p4info.txtpb`)
/// with `-I` folders and `-D` defines.
pub fn compile(
    tools: &Tools,
    program: &Path,
    includes: &[PathBuf],
    defines: &[(String, String)],
    out_dir: &Path,
) -> Result<Compiled, Error> {
    compile_with(&tools.p4c, program, includes, defines, out_dir)
}

/// [`compile`] with `compiler`: `p4c-bm2-ss`, or the `p4c` driver, which
/// takes `--target bmv2` and a folder as `-o` (it names the JSON after the
/// program, as [`compile`] does).
pub fn compile_with(
    compiler: &Path,
    program: &Path,
    includes: &[PathBuf],
    defines: &[(String, String)],
    out_dir: &Path,
) -> Result<Compiled, Error> {
    std::fs::create_dir_all(out_dir)
        .map_err(Error::io(format!("creating {}", out_dir.display())))?;
    let stem = program
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".into());
    let json = out_dir.join(format!("{stem}.json"));
    let p4info = out_dir.join(format!("{stem}.p4info.txtpb"));
    let is_driver = compiler.file_name().is_some_and(|n| n == "p4c");
    let mut command = Command::new(compiler);
    if is_driver {
        command.args(["--target", "bmv2"]);
    }
    command.args(["--arch", "v1model", "--std", "p4-16"]);
    for dir in includes {
        command.arg("-I").arg(dir);
    }
    for (name, value) in defines {
        command.arg(format!("-D{name}={value}"));
    }
    command
        .arg("-o")
        .arg(if is_driver { out_dir } else { &json })
        .arg("--p4runtime-files")
        .arg(&p4info)
        .arg(program);
    let out = command
        .stdin(Stdio::null())
        .output()
        .map_err(Error::io(format!("running {}", compiler.display())))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(Error::Compile {
            program: program.to_path_buf(),
            command: format!("{command:?}"),
            stderr: stderr.trim().to_owned(),
        });
    }
    Ok(Compiled {
        json,
        p4info,
        warnings: parse_warnings(&stderr),
    })
}

/// Picks the warning lines out of p4c's output (each is followed by the
/// source line and a caret line, which are skipped).
pub fn parse_warnings(stderr: &str) -> Vec<Warning> {
    stderr.lines().filter_map(parse_warning).collect()
}

fn parse_warning(line: &str) -> Option<Warning> {
    let (location, rest) = line.split_once("): ")?;
    let (path, line_no) = location.rsplit_once('(')?;
    let rest = rest.strip_prefix("[--Wwarn=")?;
    let (class, rest) = rest.split_once("] warning: ")?;
    Some(Warning {
        file: path.rsplit('/').next().unwrap_or(path).to_string(),
        line: line_no.parse().ok()?,
        class: class.to_string(),
        message: rest.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_are_picked_out_of_p4c_output() {
        let text = "/a/b/constants.p4(38): [--Wwarn=unused] warning: 'FLAG_ECN' is unused\n\
                    const bit<8> FLAG_ECN = 0x10;\n\
                    \x20            ^^^^^^^^\n\
                    x.p4(7): [--Wwarn=uninitialized-use] warning: v may be uninitialized\n\
                    x.p4(9): error: something else\n";
        let w = parse_warnings(text);
        assert_eq!(
            w,
            vec![
                Warning {
                    file: "constants.p4".into(),
                    line: 38,
                    class: "unused".into(),
                    message: "'FLAG_ECN' is unused".into()
                },
                Warning {
                    file: "x.p4".into(),
                    line: 7,
                    class: "uninitialized-use".into(),
                    message: "v may be uninitialized".into()
                }
            ]
        );
    }
}
