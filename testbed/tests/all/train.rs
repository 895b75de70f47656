//! `experiments/train.toml`: a real model trained through the switch ends
//! where the same descent in one process ends.

use std::path::Path;

use esa_testbed::{Experiment, RunOptions, run_experiment};

#[test]
fn training_through_the_switch_matches_local_training() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/train.toml");
    let experiment = Experiment::load(&path).unwrap();
    let options = RunOptions {
        progress: false,
        ..RunOptions::default()
    };
    let report = run_experiment(&experiment, &options).unwrap();
    print!("{}", report.table());
    for job in report.jobs() {
        assert!(job.verified, "{}: {:?}", job.name, job.error);
    }
    let job = report.jobs().find(|j| j.name == "softmax").unwrap();
    let t = job.training.as_ref().expect("a training report");
    let iterations = experiment.jobs[0].iterations as usize;
    assert_eq!(t.loss_curve.len(), iterations + 1);
    assert_eq!(t.local_loss_curve.len(), iterations + 1);
    // Both start from zero parameters: ln(classes).
    assert!((t.loss_curve[0] - (t.classes as f64).ln()).abs() < 1e-12);
    assert_eq!(t.loss_curve[0], t.local_loss_curve[0]);
    // Quantized (2^-16) gradients: the curves agree to well under 1e-3.
    for (k, (a, b)) in t.loss_curve.iter().zip(&t.local_loss_curve).enumerate() {
        assert!((a - b).abs() < 1e-3, "iteration {k}: {a} vs {b}");
    }
    assert!(t.max_gradient_error < 1e-4, "{}", t.max_gradient_error);
    // And it learnt something.
    assert!(
        t.final_loss < 0.5 * t.loss_curve[0],
        "{} -> {}",
        t.loss_curve[0],
        t.final_loss
    );
    let dir = std::env::temp_dir().join(format!("esa-testbed-train-{}", std::process::id()));
    report.write(&dir).unwrap();
    let svg = std::fs::read_to_string(dir.join("loss_curve.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let texts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .map(str::trim)
        .collect();
    for curve in ["softmax: switch", "softmax: local"] {
        assert!(
            texts.iter().any(|t| t.ends_with(curve)),
            "{curve}: {texts:?}"
        );
    }
    // In colour (not the black axes): the switch's curve, one line through
    // every loss; the local one, dashed, in many short pieces.
    let lines: Vec<usize> = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") != Some("#000000"))
        .map(|n| n.attribute("points").unwrap().split_whitespace().count())
        .collect();
    assert_eq!(lines.iter().filter(|&&n| n == iterations + 1).count(), 1);
    assert!(lines.len() > iterations, "{lines:?}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    let softmax = json["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["name"] == "softmax")
        .unwrap();
    assert_eq!(
        softmax["training"]["loss_curve"].as_array().unwrap().len(),
        iterations + 1
    );
    let _ = std::fs::remove_dir_all(&dir);
}
