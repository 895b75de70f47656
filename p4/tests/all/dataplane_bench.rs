//! `esa bench dataplane` keeps working: on a short run, the engines and the
//! pool model agree on every packet of the mix and each engine gets a rate
//! (the figures themselves are for the benchmark, not for a test); the
//! native engine is there exactly when `esa_p4` generated the program.

use esa_p4::bench::{BenchOptions, bench, default_program};

#[test]
fn the_dataplane_bench_checks_agreement_and_rates_every_engine() {
    for (lanes, native) in [(4, false), (64, true)] {
        let options = BenchOptions {
            program: default_program(),
            lanes,
            packets: 1_500,
            repeats: 1,
        };
        let mut lines = vec![];
        let (work, rates) = bench(&options, |l| lines.push(l.to_string())).unwrap();
        let checked = if native {
            "checked: native, compiled, reference and model agree"
        } else {
            "checked: compiled, reference and model agree"
        };
        assert!(lines.iter().any(|l| l.starts_with(checked)), "{lines:?}");
        assert_eq!(
            lines
                .iter()
                .any(|l| l.starts_with("native: no generated code")),
            !native,
            "{lines:?}"
        );
        assert!(
            work.packets >= 1_500 && work.emitted > 0 && work.completed > 0,
            "{work:?}"
        );
        let names: Vec<&str> = rates.iter().map(|r| r.name).collect();
        let mut want = vec!["compiled", "batched", "reference", "model"];
        if native {
            want.splice(0..0, ["native", "native-batched"]);
        }
        assert_eq!(names, want);
        assert!(rates.iter().all(|r| r.pps.is_finite() && r.pps > 0.0));
    }
}

#[test]
fn a_program_that_does_not_compile_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.p4");
    std::fs::write(&bad, "control C() { apply { x = ; } }\n").unwrap();
    let options = BenchOptions {
        program: bad,
        lanes: 32,
        packets: 10,
        repeats: 1,
    };
    let err = bench(&options, |_| {}).unwrap_err();
    assert!(err.contains("bad.p4"), "{err}");
}

/// The BMv2 leg: simple_switch emits exactly as many frames as p4sim for the
/// same packets (else `bench_bmv2` fails), and gets a rate.
#[test]
fn the_bmv2_leg_emits_what_p4sim_emits() {
    let Some(tools) = esa_bmv2::Tools::for_test("the_bmv2_leg_emits_what_p4sim_emits", true) else {
        return;
    };
    let options = BenchOptions {
        program: default_program(),
        lanes: 32,
        packets: 800,
        repeats: 1,
    };
    let pps = esa_p4::bench::bench_bmv2(&tools, &options, |_| {}).unwrap();
    assert!(pps.is_finite() && pps > 0.0);
}
