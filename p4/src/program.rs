//! Where ESA's P4 programs are and what they are compiled with: the two
//! architectures' `esa.p4`, the small test programs, the `-D` defines, and
//! p4sim's compile of one of them.

use esa_core::constants::MAX_FAN_IN;
use esa_core::job::Mode;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

/// Lane counts the programs can be compiled for (`-DESA_LANES=K`): the
/// lanes `constants.p4` and `tna/lane_list.p4` expand
/// ([`crate::constants`] generates both from this list).
pub const LANE_COUNTS: [usize; 5] = [4, 8, 16, 32, 64];

/// Lane counts the Tofino program fits in one pass through Tofino 1's
/// stages (`p4/tna/README.md`, "Lanes per pass"; `bf-p4c` refuses 64).
pub const TNA_LANE_COUNTS: [usize; 4] = [4, 8, 16, 32];

/// Which of the ESA programs a switch runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Arch {
    /// `p4/v1model/esa.p4` (esa-switch, BMv2).
    #[default]
    V1model,
    /// `p4/tna/esa.p4`, the Tofino 1 program (bf-p4c; esa-switch runs it in
    /// p4sim's TNA architecture).
    Tna,
}

impl Arch {
    /// Both programs.
    pub const ALL: [Arch; 2] = [Arch::V1model, Arch::Tna];

    /// The architecture of a P4Info whose `pkg_info.arch` is `arch`: `tna`
    /// is the Tofino program, anything else v1model.
    pub fn from_pkg_arch(arch: &str) -> Arch {
        match arch {
            "tna" => Arch::Tna,
            _ => Arch::V1model,
        }
    }

    /// `v1model` or `tna`, as in configuration files and on the command
    /// line.
    pub const fn name(self) -> &'static str {
        match self {
            Arch::V1model => "v1model",
            Arch::Tna => "tna",
        }
    }

    /// The lane counts the architecture's program runs with.
    pub const fn lane_counts(self) -> &'static [usize] {
        match self {
            Arch::V1model => &LANE_COUNTS,
            Arch::Tna => &TNA_LANE_COUNTS,
        }
    }

    /// Checks that the architecture's program runs with `lanes` lanes; the
    /// error says which counts it takes (`must be 4, 8, 16, 32 or 64`, `the
    /// Tofino program takes 4, 8, 16 or 32 lanes (one pass)`).
    pub fn check_lanes(self, lanes: usize) -> Result<(), String> {
        if !LANE_COUNTS.contains(&lanes) {
            return Err(format!("must be {}", in_words(&LANE_COUNTS)));
        }
        if !self.lane_counts().contains(&lanes) {
            return Err(format!(
                "the {} program takes {} lanes (one pass)",
                self.hardware(),
                in_words(self.lane_counts())
            ));
        }
        Ok(())
    }

    /// The most workers a job of `mode` may have on the architecture's
    /// program: [`MAX_FAN_IN`], but 31 for an atp job on the Tofino
    /// program, whose owner register marks a completed atp chunk held with
    /// bit 31 of its pending set, worker 31's bit (docs/protocol.md, "On
    /// Tofino").
    pub const fn max_fan_in(self, mode: Mode) -> u8 {
        match (self, mode) {
            (Arch::Tna, Mode::Atp) => MAX_FAN_IN - 1,
            _ => MAX_FAN_IN,
        }
    }

    /// The most workers a tree's leaf may aggregate of a job on the
    /// architecture's program: [`MAX_FAN_IN`], but 31 on the Tofino
    /// program, which holds a leaf's complete rack partial as it holds a
    /// completed atp chunk, with bit 31 of the owner's pending set
    /// (docs/protocol.md, "On Tofino").
    pub const fn max_leaf_fan_in(self) -> u8 {
        match self {
            Arch::Tna => MAX_FAN_IN - 1,
            Arch::V1model => MAX_FAN_IN,
        }
    }

    /// The hardware the architecture's program is written for.
    const fn hardware(self) -> &'static str {
        match self {
            Arch::V1model => "BMv2",
            Arch::Tna => "Tofino",
        }
    }

    /// The architecture's `esa.p4` in this source tree.
    pub fn program(self) -> PathBuf {
        source_dir().join(self.name()).join("esa.p4")
    }

    /// The folder of the architecture's STF scenarios and its small test
    /// program (`p4/tests`, `p4/tna/tests`).
    pub fn test_dir(self) -> PathBuf {
        match self {
            Arch::V1model => source_dir().join("tests"),
            Arch::Tna => source_dir().join("tna").join("tests"),
        }
    }

    /// The architecture's `esa_small.p4` (4 lanes, 16 slots), the program
    /// of the STF and differential tests.
    pub fn test_program(self) -> PathBuf {
        self.test_dir().join("esa_small.p4")
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Arch {
    type Err = String;

    fn from_str(s: &str) -> Result<Arch, String> {
        Arch::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| format!("unknown arch `{s}` (v1model or tna)"))
    }
}

/// `4, 8, 16 or 32`.
fn in_words(counts: &[usize]) -> String {
    let words: Vec<String> = counts.iter().map(usize::to_string).collect();
    match words.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// This crate's folder, `p4/` of the source tree.
pub fn source_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `p4/include`, the v1model program's parts.
pub fn include_dir() -> PathBuf {
    source_dir().join("include")
}

/// The `-D` defines a program is compiled with; `None` keeps the
/// program's default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Defines {
    /// `ESA_LANES`: value lanes per packet, one of [`LANE_COUNTS`].
    pub lanes: Option<usize>,
    /// `ESA_POOL_SLOTS`: aggregator slots, a power of two.
    pub pool_slots: Option<u32>,
}

impl Defines {
    /// Both defines given.
    pub const fn new(lanes: usize, pool_slots: u32) -> Defines {
        Defines {
            lanes: Some(lanes),
            pool_slots: Some(pool_slots),
        }
    }

    /// Only `ESA_LANES` given.
    pub const fn lanes(lanes: usize) -> Defines {
        Defines {
            lanes: Some(lanes),
            pool_slots: None,
        }
    }

    /// `(name, value)` pairs, for p4sim's front end and the controller's
    /// P4Info generator.
    pub fn pairs(&self) -> Vec<(String, String)> {
        let mut out = vec![];
        if let Some(k) = self.lanes {
            out.push(("ESA_LANES".to_string(), k.to_string()));
        }
        if let Some(s) = self.pool_slots {
            out.push(("ESA_POOL_SLOTS".to_string(), s.to_string()));
        }
        out
    }

    /// Compiler flags: `-DESA_LANES=32 -DESA_POOL_SLOTS=256`.
    pub fn flags(&self) -> Vec<String> {
        self.pairs()
            .into_iter()
            .map(|(k, v)| format!("-D{k}={v}"))
            .collect()
    }

    /// p4sim's front-end options for these defines.
    pub fn frontend_options(&self) -> p4sim::front::FrontendOptions {
        p4sim::front::FrontendOptions {
            include_dirs: vec![],
            defines: self.pairs(),
        }
    }
}

/// `program` through p4sim's front end and checker with `defines`; the
/// error names the file.
pub fn compile(program: &Path, defines: &Defines) -> Result<Arc<p4sim::ir::Compiled>, String> {
    let ast = p4sim::front::parse_program_with(program, &defines.frontend_options())
        .map_err(|d| format!("{}: {d}", program.display()))?;
    let compiled =
        p4sim::check::compile(&ast).map_err(|d| format!("{}: {d}", program.display()))?;
    Ok(Arc::new(compiled))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_exist() {
        for arch in Arch::ALL {
            assert!(arch.program().is_file(), "{}", arch.program().display());
            assert!(
                arch.test_program().is_file(),
                "{}",
                arch.test_program().display()
            );
        }
        assert!(include_dir().join("constants.p4").is_file());
    }

    #[test]
    fn names_round_trip() {
        for arch in Arch::ALL {
            assert_eq!(arch.name().parse::<Arch>(), Ok(arch));
            assert_eq!(Arch::from_pkg_arch(arch.name()), arch);
        }
        assert!("tofino".parse::<Arch>().is_err());
        assert_eq!(Arch::from_pkg_arch("v1model"), Arch::V1model);
        assert_eq!(Arch::from_pkg_arch("psa"), Arch::V1model);
    }

    #[test]
    fn lane_counts_are_checked_per_program() {
        assert_eq!(Arch::V1model.check_lanes(64), Ok(()));
        assert_eq!(Arch::Tna.check_lanes(32), Ok(()));
        assert_eq!(
            Arch::V1model.check_lanes(3).unwrap_err(),
            "must be 4, 8, 16, 32 or 64"
        );
        assert_eq!(
            Arch::Tna.check_lanes(64).unwrap_err(),
            "the Tofino program takes 4, 8, 16 or 32 lanes (one pass)"
        );
    }

    #[test]
    fn an_atp_job_on_tofino_has_at_most_31_workers() {
        for mode in [Mode::Esa, Mode::Atp, Mode::SwitchMl] {
            assert_eq!(Arch::V1model.max_fan_in(mode), 32);
        }
        assert_eq!(Arch::Tna.max_fan_in(Mode::Esa), 32);
        assert_eq!(Arch::Tna.max_fan_in(Mode::SwitchMl), 32);
        assert_eq!(Arch::Tna.max_fan_in(Mode::Atp), 31);
    }

    #[test]
    fn a_leaf_on_tofino_has_at_most_31_workers() {
        assert_eq!(Arch::V1model.max_leaf_fan_in(), 32);
        assert_eq!(Arch::Tna.max_leaf_fan_in(), 31);
    }

    #[test]
    fn defines() {
        assert_eq!(
            Defines::new(32, 256).flags(),
            ["-DESA_LANES=32", "-DESA_POOL_SLOTS=256"]
        );
        assert!(Defines::default().pairs().is_empty());
        assert_eq!(
            Defines::lanes(8).pairs(),
            [("ESA_LANES".to_string(), "8".to_string())]
        );
    }
}
