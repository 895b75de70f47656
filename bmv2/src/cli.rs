//! BMv2's runtime CLI (`simple_switch_CLI`, Thrift): tables, multicast,
//! mirroring, counters and registers.
//!
//! Commands go in on standard input, a batch per process. The CLI answers
//! each after its `RuntimeCmd: ` prompt, so the output splits into one
//! answer per command; an answer that reports an error fails the batch with
//! the command and the answer.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::{Error, Tools};

/// A CLI bound to one switch's Thrift port.
#[derive(Debug, Clone)]
pub struct RuntimeCli {
    python: PathBuf,
    script: PathBuf,
    thrift_port: u16,
}

const PROMPT: &str = "RuntimeCmd: ";

impl RuntimeCli {
    /// A CLI for the switch listening on `thrift_port`.
    pub fn new(tools: &Tools, thrift_port: u16) -> Result<RuntimeCli, Error> {
        let script = tools.cli.clone().ok_or_else(|| Error::Missing {
            tool: "simple_switch_CLI".into(),
            hint: "it comes with BMv2".into(),
        })?;
        Ok(RuntimeCli {
            python: tools.python.clone(),
            script,
            thrift_port,
        })
    }

    /// Runs `commands` in order and returns each one's answer; the first
    /// answer that reports an error fails the batch.
    pub fn run(&self, commands: &[String]) -> Result<Vec<String>, Error> {
        let answers = self.run_each(commands)?;
        let mut out = Vec::with_capacity(answers.len());
        for (command, answer) in commands.iter().zip(answers) {
            out.push(answer.map_err(|answer| Error::Cli {
                command: command.clone(),
                answer,
            })?);
        }
        Ok(out)
    }

    /// Runs `commands` in order (the CLI goes on after a refused one) and
    /// returns each one's answer, `Err` holding the CLI's words for those it
    /// refused. Fails as a whole only when the CLI itself cannot run.
    pub fn run_each(&self, commands: &[String]) -> Result<Vec<Result<String, String>>, Error> {
        if commands.is_empty() {
            return Ok(vec![]);
        }
        let mut child = Command::new(&self.python)
            .arg(&self.script)
            .arg("--thrift-port")
            .arg(self.thrift_port.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(Error::io(format!("starting {}", self.script.display())))?;
        let mut input = commands.join("\n");
        input.push('\n');
        child
            .stdin
            .take()
            .expect("piped")
            .write_all(input.as_bytes())
            .map_err(Error::io("writing to simple_switch_CLI"))?;
        let out = child
            .wait_with_output()
            .map_err(Error::io("waiting for simple_switch_CLI"))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let answers = split_answers(&stdout);
        if !out.status.success() || answers.len() < commands.len() {
            return Err(Error::Cli {
                command: commands.join("; "),
                answer: format!(
                    "{} answers to {} commands ({}):\n{stdout}{}",
                    answers.len(),
                    commands.len(),
                    out.status,
                    String::from_utf8_lossy(&out.stderr)
                ),
            });
        }
        Ok(answers
            .into_iter()
            .take(commands.len())
            .map(|a| {
                if is_error(&a) {
                    Err(a.trim().to_string())
                } else {
                    Ok(a)
                }
            })
            .collect())
    }
}

/// The text after each prompt (the banner before the first is dropped).
fn split_answers(stdout: &str) -> Vec<String> {
    stdout.split(PROMPT).skip(1).map(str::to_string).collect()
}

/// The CLI reports a refusal on a line of its own, often after echoing
/// what it tried (`Associating node 9 ...` then `Invalid PRE operation`).
fn is_error(answer: &str) -> bool {
    answer.lines().map(str::trim_start).any(|l| {
        l.starts_with("***")
            || l.starts_with("Invalid")
            || l.starts_with("Error")
            || l.contains("Exception")
            || l.starts_with("Traceback")
    })
}

/// Parses `name[3]= (120 bytes, 2 packets)` into (packets, bytes).
pub fn parse_counter(answer: &str) -> Option<(u64, u64)> {
    let inner = answer.split_once("= (")?.1.split_once(')')?.0;
    let (bytes, packets) = inner.split_once(", ")?;
    Some((
        packets.strip_suffix(" packets")?.parse().ok()?,
        bytes.strip_suffix(" bytes")?.parse().ok()?,
    ))
}

/// Parses `name[3]= 42` into 42 (registers print decimal).
pub fn parse_register(answer: &str) -> Option<u128> {
    answer.split_once("]= ")?.1.trim().parse().ok()
}

/// Parses the handle out of `... with handle 7` (table entries and
/// multicast nodes).
pub fn parse_handle(answer: &str) -> Option<u32> {
    answer
        .split("handle ")
        .nth(1)?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_split_at_prompts_and_errors_are_recognised() {
        let out = "Obtaining JSON from switch...\nDone\nControl utility\n\
                   RuntimeCmd: Adding entry\nEntry has been added with handle 4\n\
                   RuntimeCmd: Invalid match key: Error while parsing 0xg\n\
                   RuntimeCmd: *** Unknown syntax: bogus\n\
                   RuntimeCmd: Associating node 9 to multicast group 7\n\
                   Invalid PRE operation (INVALID_L1_HANDLE)\nRuntimeCmd: ";
        let a = split_answers(out);
        assert_eq!(a.len(), 5);
        assert!(is_error(&a[3]));
        assert_eq!(parse_handle(&a[0]), Some(4));
        assert!(!is_error(&a[0]));
        assert!(is_error(&a[1]));
        assert!(is_error(&a[2]));
    }

    #[test]
    fn counter_and_register_answers_parse() {
        assert_eq!(
            parse_counter("EsaIngress.a.data_rx[1]= (222 bytes, 3 packets)\n"),
            Some((3, 222))
        );
        assert_eq!(parse_counter("garbage"), None);
        assert_eq!(
            parse_register("EsaIngress.a.slot_key[3]= 4096\n"),
            Some(4096)
        );
        assert_eq!(
            parse_handle(
                "Creating node with rid 0 , port map 1110 and lag map \nnode was created with handle 2\n"
            ),
            Some(2)
        );
    }
}
