//! The plots, as hand-written SVG: JCT per job grouped by variant, the JCT
//! CDF per variant, the in-switch share over time per variant, and the
//! training loss curves.

use std::fmt::Write as _;

use crate::report::ExperimentReport;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 400.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 160.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
const COLOURS: [&str; 8] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f",
];

/// Escapes text for SVG.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A round axis maximum at or above `v`.
fn nice_max(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let magnitude = 10f64.powf(v.log10().floor());
    for step in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if step * magnitude >= v {
            return step * magnitude;
        }
    }
    10.0 * magnitude
}

fn header(out: &mut String, title: &str) {
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(out, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        out,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        WIDTH / 2.0,
        escape(title)
    );
}

/// The y axis from 0 to `max` with five ticks, labelled `label`.
fn y_axis(out: &mut String, max: f64, label: &str, fmt: impl Fn(f64) -> String) {
    let plot_h = HEIGHT - TOP - BOTTOM;
    for i in 0..=5 {
        let v = max * f64::from(i) / 5.0;
        let y = HEIGHT - BOTTOM - plot_h * f64::from(i) / 5.0;
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/>"##,
            WIDTH - RIGHT
        );
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            LEFT - 6.0,
            y + 4.0,
            fmt(v)
        );
    }
    let _ = writeln!(
        out,
        r#"<text x="16" y="{:.1}" text-anchor="middle" transform="rotate(-90 16 {:.1})">{}</text>"#,
        TOP + plot_h / 2.0,
        TOP + plot_h / 2.0,
        escape(label)
    );
    let _ = writeln!(
        out,
        r#"<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{:.1}" stroke="black"/>"#,
        HEIGHT - BOTTOM
    );
    let _ = writeln!(
        out,
        r#"<line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="black"/>"#,
        HEIGHT - BOTTOM,
        WIDTH - RIGHT,
        HEIGHT - BOTTOM
    );
}

fn legend(out: &mut String, labels: &[String]) {
    for (i, l) in labels.iter().enumerate() {
        let y = TOP + 18.0 * i as f64;
        let x = WIDTH - RIGHT + 16.0;
        let _ = writeln!(
            out,
            r#"<rect x="{x:.1}" y="{y:.1}" width="12" height="12" fill="{}"/>"#,
            COLOURS[i % COLOURS.len()]
        );
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            x + 18.0,
            y + 10.0,
            escape(l)
        );
    }
}

/// JCT per job, one bar per variant in each job's group.
pub fn jct_bars(report: &ExperimentReport) -> String {
    let mut out = String::new();
    header(
        &mut out,
        &format!("{}: job completion time", report.experiment),
    );
    let labels: Vec<String> = report.variants.iter().map(|v| v.variant.clone()).collect();
    let mut jobs: Vec<String> = Vec::new();
    for j in report.jobs() {
        if !jobs.contains(&j.name) {
            jobs.push(j.name.clone());
        }
    }
    let max = nice_max(report.jobs().map(|j| j.jct_ms).fold(0.0, f64::max));
    y_axis(&mut out, max, "JCT (ms)", |v| format!("{v:.0}"));
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let group_w = plot_w / jobs.len().max(1) as f64;
    let bar_w = group_w * 0.8 / labels.len().max(1) as f64;
    for (g, name) in jobs.iter().enumerate() {
        let gx = LEFT + group_w * g as f64 + group_w * 0.1;
        for (vi, v) in report.variants.iter().enumerate() {
            let Some(j) = v.jobs.iter().find(|j| &j.name == name) else {
                continue;
            };
            let h = plot_h * (j.jct_ms / max).clamp(0.0, 1.0);
            let x = gx + bar_w * vi as f64;
            let _ = writeln!(
                out,
                r#"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{h:.1}" fill="{}"><title>{} / {}: {:.1} ms{}</title></rect>"#,
                HEIGHT - BOTTOM - h,
                (bar_w - 2.0).max(1.0),
                COLOURS[vi % COLOURS.len()],
                escape(&v.variant),
                escape(name),
                j.jct_ms,
                if j.verified { "" } else { " (not verified)" }
            );
        }
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            LEFT + group_w * (g as f64 + 0.5),
            HEIGHT - BOTTOM + 18.0,
            escape(name)
        );
    }
    legend(&mut out, &labels);
    out.push_str("</svg>\n");
    out
}

/// Empirical CDF of JCT per variant (finished jobs only).
pub fn jct_cdf(report: &ExperimentReport) -> String {
    let mut out = String::new();
    header(&mut out, &format!("{}: JCT CDF", report.experiment));
    let labels: Vec<String> = report.variants.iter().map(|v| v.variant.clone()).collect();
    let max = nice_max(report.jobs().map(|j| j.jct_ms).fold(0.0, f64::max));
    y_axis(&mut out, 1.0, "fraction of jobs", |v| format!("{v:.1}"));
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    for i in 0..=5 {
        let v = max * f64::from(i) / 5.0;
        let x = LEFT + plot_w * f64::from(i) / 5.0;
        let _ = writeln!(
            out,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{v:.0}</text>"#,
            HEIGHT - BOTTOM + 18.0
        );
    }
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">JCT (ms)</text>"#,
        LEFT + plot_w / 2.0,
        HEIGHT - 14.0
    );
    for (vi, v) in report.variants.iter().enumerate() {
        let mut jcts: Vec<f64> = v
            .jobs
            .iter()
            .filter(|j| j.jct_ms > 0.0)
            .map(|j| j.jct_ms)
            .collect();
        if jcts.is_empty() {
            continue;
        }
        jcts.sort_by(f64::total_cmp);
        let n = v.jobs.len().max(1) as f64;
        let px = |ms: f64| LEFT + plot_w * (ms / max).clamp(0.0, 1.0);
        let py = |f: f64| HEIGHT - BOTTOM - plot_h * f;
        let mut points = format!("{:.1},{:.1}", px(0.0), py(0.0));
        for (k, ms) in jcts.iter().enumerate() {
            let _ = write!(
                points,
                " {:.1},{:.1} {:.1},{:.1}",
                px(*ms),
                py(k as f64 / n),
                px(*ms),
                py((k + 1) as f64 / n)
            );
        }
        let _ = write!(points, " {:.1},{:.1}", px(max), py(jcts.len() as f64 / n));
        let _ = writeln!(
            out,
            r#"<polyline points="{points}" fill="none" stroke="{}" stroke-width="2"/>"#,
            COLOURS[vi % COLOURS.len()]
        );
    }
    legend(&mut out, &labels);
    out.push_str("</svg>\n");
    out
}

/// One line of a line plot.
struct Series {
    label: String,
    points: Vec<(f64, f64)>,
    colour: &'static str,
    dashed: bool,
}

/// Lines on axes from 0 to `x_max` and 0 to `y_max`, with a legend.
fn line_plot(
    title: &str,
    x_label: &str,
    y_label: &str,
    (x_max, y_max): (f64, f64),
    series: &[Series],
    y_fmt: impl Fn(f64) -> String,
) -> String {
    let mut out = String::new();
    header(&mut out, title);
    y_axis(&mut out, y_max, y_label, y_fmt);
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    for i in 0..=5 {
        let v = x_max * f64::from(i) / 5.0;
        let x = LEFT + plot_w * f64::from(i) / 5.0;
        let _ = writeln!(
            out,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            HEIGHT - BOTTOM + 18.0,
            if x_max >= 10.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.1}")
            }
        );
    }
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        LEFT + plot_w / 2.0,
        HEIGHT - 14.0,
        escape(x_label)
    );
    let px = |x: f64| LEFT + plot_w * (x / x_max).clamp(0.0, 1.0);
    let py = |y: f64| HEIGHT - BOTTOM - plot_h * (y / y_max).clamp(0.0, 1.0);
    for (k, line) in series.iter().enumerate() {
        let finite: Vec<(f64, f64)> = line
            .points
            .iter()
            .copied()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .collect();
        if finite.is_empty() {
            continue;
        }
        let points: Vec<String> = finite
            .iter()
            .map(|(x, y)| format!("{:.1},{:.1}", px(*x), py(*y)))
            .collect();
        let _ = writeln!(
            out,
            r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="2"{}/>"#,
            points.join(" "),
            line.colour,
            if line.dashed {
                r#" stroke-dasharray="6 4""#
            } else {
                ""
            }
        );
        for (x, y) in &finite {
            let _ = writeln!(
                out,
                r#"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="{}"/>"#,
                px(*x),
                py(*y),
                line.colour
            );
        }
        let ly = TOP + 18.0 * k as f64 + 6.0;
        let lx = WIDTH - RIGHT + 16.0;
        let _ = writeln!(
            out,
            r#"<line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{}" stroke-width="2"{}/>"#,
            lx + 14.0,
            line.colour,
            if line.dashed {
                r#" stroke-dasharray="4 2""#
            } else {
                ""
            }
        );
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            lx + 18.0,
            ly + 4.0,
            escape(&line.label)
        );
    }
    out.push_str("</svg>\n");
    out
}

/// Time buckets of the in-switch share plot.
pub const SHARE_BUCKETS: usize = 20;

/// Per variant: the share of chunk completions (as every job's PS saw
/// them) done in the switch, per time bucket of `bucket_ms`; `None` where
/// no chunk completed.
pub fn share_buckets(report: &ExperimentReport) -> (f64, Vec<Vec<Option<f64>>>) {
    let end = report
        .jobs()
        .filter_map(|j| j.results_timeline.last().map(|p| p[0]))
        .fold(0.0, f64::max);
    let bucket_ms = (end / SHARE_BUCKETS as f64).max(1e-3);
    let shares = report
        .variants
        .iter()
        .map(|v| {
            let mut switch = [0.0f64; SHARE_BUCKETS];
            let mut ps = [0.0f64; SHARE_BUCKETS];
            for j in &v.jobs {
                let mut last = [0.0, 0.0];
                for p in &j.results_timeline {
                    let b = ((p[0] / bucket_ms) as usize).min(SHARE_BUCKETS - 1);
                    switch[b] += p[1] - last[0];
                    ps[b] += p[2] - last[1];
                    last = [p[1], p[2]];
                }
            }
            switch
                .iter()
                .zip(&ps)
                .map(|(s, p)| (s + p > 0.0).then(|| s / (s + p)))
                .collect()
        })
        .collect();
    (bucket_ms, shares)
}

/// The fraction of chunks aggregated in the switch per time bucket, one
/// line per variant.
pub fn share_over_time(report: &ExperimentReport) -> String {
    let (bucket_ms, shares) = share_buckets(report);
    let series: Vec<Series> = report
        .variants
        .iter()
        .zip(&shares)
        .enumerate()
        .map(|(i, (v, s))| Series {
            label: v.variant.clone(),
            points: s
                .iter()
                .enumerate()
                .filter_map(|(b, share)| share.map(|x| ((b as f64 + 0.5) * bucket_ms, x)))
                .collect(),
            colour: COLOURS[i % COLOURS.len()],
            dashed: false,
        })
        .collect();
    line_plot(
        &format!("{}: in-switch share over time", report.experiment),
        &format!("time (ms; buckets of {bucket_ms:.0} ms)"),
        "chunks aggregated in the switch",
        (bucket_ms * SHARE_BUCKETS as f64, 1.0),
        &series,
        |v| format!("{:.0}%", v * 100.0),
    )
}

/// Training loss per iteration: through the switch (solid) and in one
/// process (dashed), per training job.
pub fn loss_curves(report: &ExperimentReport) -> String {
    let mut series = Vec::new();
    let mut x_max: f64 = 1.0;
    let mut y_max: f64 = 0.0;
    for (i, j) in report.jobs().filter(|j| j.training.is_some()).enumerate() {
        let Some(t) = &j.training else { continue };
        let colour = COLOURS[i % COLOURS.len()];
        let points = |c: &[f64]| -> Vec<(f64, f64)> {
            c.iter().enumerate().map(|(k, l)| (k as f64, *l)).collect()
        };
        x_max = x_max.max(t.loss_curve.len().saturating_sub(1) as f64);
        y_max = t
            .loss_curve
            .iter()
            .chain(&t.local_loss_curve)
            .copied()
            .filter(|l| l.is_finite())
            .fold(y_max, f64::max);
        series.push(Series {
            label: format!("{} / {}: switch", j.variant, j.name),
            points: points(&t.loss_curve),
            colour,
            dashed: false,
        });
        series.push(Series {
            label: format!("{} / {}: local", j.variant, j.name),
            points: points(&t.local_loss_curve),
            colour,
            dashed: true,
        });
    }
    line_plot(
        &format!("{}: training loss", report.experiment),
        "iteration",
        "cross-entropy (full data)",
        (x_max, nice_max(y_max)),
        &series,
        |v| format!("{v:.2}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{JobReport, VariantReport};

    fn report() -> ExperimentReport {
        let job = |name: &str, variant: &str, jct: f64| JobReport {
            name: name.into(),
            variant: variant.into(),
            jct_ms: jct,
            verified: true,
            ..JobReport::default()
        };
        ExperimentReport {
            experiment: "t<&>".into(),
            lanes: 32,
            pool_slots: 256,
            setup: "test".into(),
            switch: "embedded".into(),
            fabric: "inprocess".into(),
            variants: vec![
                VariantReport {
                    variant: "esa".into(),
                    wall_ms: 10.0,
                    jobs: vec![job("a", "esa", 120.0), job("b", "esa", 80.0)],
                },
                VariantReport {
                    variant: "atp".into(),
                    wall_ms: 10.0,
                    jobs: vec![job("a", "atp", 150.0), job("b", "atp", 0.0)],
                },
            ],
        }
    }

    #[test]
    fn plots_are_svg_with_escaped_text() {
        let r = report();
        for svg in [jct_bars(&r), jct_cdf(&r)] {
            assert!(svg.starts_with("<svg"));
            assert!(svg.trim_end().ends_with("</svg>"));
            assert!(svg.contains("t&lt;&amp;&gt;"));
            assert!(!svg.contains("NaN"));
        }
        assert_eq!(jct_bars(&r).matches("<rect x=").count(), 4 + 2);
    }

    #[test]
    fn share_buckets_split_results_by_time() {
        let mut r = report();
        // esa: 10 results, all from the switch, in the first half; 10 from
        // the PS in the second half.
        r.variants[0].jobs[0].results_timeline =
            vec![[10.0, 6.0, 0.0], [40.0, 10.0, 0.0], [90.0, 10.0, 10.0]];
        // atp: half and half in the last bucket.
        r.variants[1].jobs[0].results_timeline = vec![[100.0, 3.0, 3.0]];
        let (bucket_ms, shares) = share_buckets(&r);
        assert_eq!(bucket_ms, 5.0);
        assert_eq!(shares[0][2], Some(1.0));
        assert_eq!(shares[0][8], Some(1.0));
        assert_eq!(shares[0][18], Some(0.0));
        assert_eq!(shares[0][1], None);
        assert_eq!(shares[1][19], Some(0.5));
        assert_eq!(shares[1].iter().flatten().count(), 1);
        let svg = share_over_time(&r);
        assert!(svg.contains("in-switch share over time"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(!svg.contains("NaN"));
    }

    #[test]
    fn loss_curves_draw_switch_and_local_lines() {
        let mut r = report();
        r.variants[0].jobs[0].training = Some(crate::report::TrainingReport {
            loss_curve: vec![1.4, 1.0, 0.8],
            local_loss_curve: vec![1.4, 1.0, 0.79],
            ..Default::default()
        });
        let svg = loss_curves(&r);
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("stroke-dasharray").count(), 2);
        assert!(svg.contains("esa / a: local"));
        assert!(!svg.contains("NaN"));
    }

    #[test]
    fn nice_maxima() {
        assert_eq!(nice_max(0.0), 1.0);
        assert_eq!(nice_max(120.0), 200.0);
        assert_eq!(nice_max(90.0), 100.0);
        assert_eq!(nice_max(2300.0), 2500.0);
    }
}
