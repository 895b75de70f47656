//! The plots, drawn with plotters' SVG backend: JCT per job grouped by
//! variant, the JCT CDF per variant, the in-switch share over time per
//! variant, the bytes on spine links per variant (racks under spines), and
//! the training loss curves.
//!
//! Each plot is a 720 × 400 SVG: the title on top, the chart on the left
//! and a legend in a column of its own on the right, so it never covers
//! data. Text stays `<text>` in the SVG (plotters estimates its extent
//! without a font file; the viewer renders it).

use std::error::Error;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::report::ExperimentReport;

const SIZE: (u32, u32) = (720, 400);
/// Width of the legend column on the right.
const LEGEND_WIDTH: u32 = 160;
/// plotters writes `font-size` as this over 1.24: 15 gives 12 px text,
/// 19 a 15 px title.
const FONT: (&str, f64) = ("sans-serif", 15.0);
const TITLE_FONT: (&str, f64) = ("sans-serif", 19.0);
const COLOURS: [RGBColor; 8] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0x9c, 0x75, 0x5f),
];

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type DrawResult = Result<(), Box<dyn Error>>;

fn colour(i: usize) -> RGBColor {
    COLOURS[i % COLOURS.len()]
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

/// How a legend entry shows its series.
#[derive(Clone, Copy)]
enum Key {
    Bar,
    Line,
    Dashed,
}

/// One legend entry.
struct LegendEntry {
    label: String,
    colour: RGBColor,
    key: Key,
}

/// Draws a plot: a white page with `title`, then `draw` with the chart's
/// area and the legend's. A drawing error (plotters reports none for an
/// SVG in memory) is logged and leaves the SVG as far as it got, still
/// well-formed: the backend closes its tags when dropped.
fn render(title: &str, draw: impl FnOnce(&Area, &Area) -> DrawResult) -> String {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        let result = (|| -> DrawResult {
            root.fill(&WHITE)?;
            let body = root.titled(title, TITLE_FONT)?;
            let (chart, legend) = body.split_horizontally(SIZE.0 - LEGEND_WIDTH);
            draw(&chart, &legend)?;
            root.present()?;
            Ok(())
        })();
        if let Err(error) = result {
            tracing::warn!(%error, title, "plot not drawn in full");
        }
    }
    out
}

/// The legend: one row per entry, a key in the series' colour and its label.
fn legend(area: &Area, entries: &[LegendEntry]) -> DrawResult {
    for (i, entry) in entries.iter().enumerate() {
        let y = 10 + 18 * i as i32;
        let (x, style) = (16, entry.colour);
        match entry.key {
            Key::Bar => area.draw(&Rectangle::new([(x, y), (x + 12, y + 12)], style.filled()))?,
            Key::Line => area.draw(&PathElement::new(
                [(x, y + 6), (x + 14, y + 6)],
                style.stroke_width(2),
            ))?,
            Key::Dashed => {
                for dash in [x, x + 9] {
                    area.draw(&PathElement::new(
                        [(dash, y + 6), (dash + 5, y + 6)],
                        style.stroke_width(2),
                    ))?;
                }
            }
        }
        area.draw(&Text::new(
            entry.label.clone(),
            (x + 18, y + 6),
            TextStyle::from(FONT).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}

/// The job names of `report` in order of first appearance.
fn job_names(report: &ExperimentReport) -> Vec<String> {
    let mut jobs: Vec<String> = Vec::new();
    for j in report.jobs() {
        if !jobs.contains(&j.name) {
            jobs.push(j.name.clone());
        }
    }
    jobs
}

/// The variants as legend entries of `key`.
fn variant_entries(report: &ExperimentReport, key: Key) -> Vec<LegendEntry> {
    report
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| LegendEntry {
            label: v.variant.clone(),
            colour: colour(i),
            key,
        })
        .collect()
}

/// JCT per job, one bar per variant in each job's group.
pub fn jct_bars(report: &ExperimentReport) -> String {
    let jobs = job_names(report);
    let max = nice_max(report.jobs().map(|j| j.jct_ms).fold(0.0, f64::max));
    let bar_w = 0.8 / report.variants.len().max(1) as f64;
    let title = format!("{}: job completion time", report.experiment);
    render(&title, |area, legend_area| {
        // One unit of x per job, centred on its index: plotters puts its
        // labels on whole numbers, which the formatter names.
        let groups = jobs.len().max(1);
        let mut chart = ChartBuilder::on(area)
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(60)
            .build_cartesian_2d(-0.5..groups as f64 - 0.5, 0.0..max)?;
        let job_label = |x: &f64| {
            let g = x.round();
            if (x - g).abs() > 1e-6 || g < 0.0 {
                return String::new();
            }
            jobs.get(g as usize).cloned().unwrap_or_default()
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(TRANSPARENT)
            .x_labels(groups)
            .y_labels(6)
            .x_label_formatter(&job_label)
            .y_label_formatter(&|v| format!("{v:.0}"))
            .y_desc("JCT (ms)")
            .label_style(FONT)
            .axis_desc_style(FONT)
            .draw()?;
        for (vi, v) in report.variants.iter().enumerate() {
            chart.draw_series(v.jobs.iter().filter_map(|j| {
                let g = jobs.iter().position(|name| *name == j.name)?;
                let x = g as f64 - 0.4 + bar_w * vi as f64;
                let top = j.jct_ms.clamp(0.0, max);
                Some(Rectangle::new(
                    [(x, 0.0), (x + bar_w * 0.9, top)],
                    colour(vi).filled(),
                ))
            }))?;
        }
        legend(legend_area, &variant_entries(report, Key::Bar))
    })
}

/// Bytes on the ToR-spine links per variant, both ways, one bar each
/// (runs with a `[topology]`; variants without rack figures get no bar).
pub fn spine_bytes(report: &ExperimentReport) -> String {
    let gigabytes: Vec<Option<f64>> = report
        .variants
        .iter()
        .map(|v| Some(v.cluster.as_ref()?.racks.as_ref()?.spine_bytes() as f64 / 1e9))
        .collect();
    let max = nice_max(gigabytes.iter().flatten().copied().fold(0.0, f64::max));
    let title = format!("{}: bytes on ToR-spine links", report.experiment);
    render(&title, |area, legend_area| {
        let bars = gigabytes.len().max(1);
        let mut chart = ChartBuilder::on(area)
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(60)
            .build_cartesian_2d(-0.5..bars as f64 - 0.5, 0.0..max)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(TRANSPARENT)
            .x_labels(0)
            .y_labels(6)
            .y_label_formatter(&|v| format!("{v:.1}"))
            .y_desc("GB, both ways")
            .label_style(FONT)
            .axis_desc_style(FONT)
            .draw()?;
        chart.draw_series(gigabytes.iter().enumerate().filter_map(|(i, gb)| {
            let x = i as f64;
            Some(Rectangle::new(
                [(x - 0.35, 0.0), (x + 0.35, gb.as_ref()?.clamp(0.0, max))],
                colour(i).filled(),
            ))
        }))?;
        legend(legend_area, &variant_entries(report, Key::Bar))
    })
}

/// Empirical CDF of JCT per variant (finished jobs only; jobs that did
/// not finish keep a variant's curve below 1).
pub fn jct_cdf(report: &ExperimentReport) -> String {
    let max = nice_max(report.jobs().map(|j| j.jct_ms).fold(0.0, f64::max));
    let title = format!("{}: JCT CDF", report.experiment);
    render(&title, |area, legend_area| {
        let mut chart = ChartBuilder::on(area)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..max, 0.0..1.0)?;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .x_labels(6)
            .y_labels(6)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.1}"))
            .x_desc("JCT (ms)")
            .y_desc("fraction of jobs")
            .label_style(FONT)
            .axis_desc_style(FONT)
            .draw()?;
        for (vi, v) in report.variants.iter().enumerate() {
            let mut jcts: Vec<f64> = v
                .jobs
                .iter()
                .filter(|j| j.jct_ms > 0.0)
                .map(|j| j.jct_ms.min(max))
                .collect();
            if jcts.is_empty() {
                continue;
            }
            jcts.sort_by(f64::total_cmp);
            let n = v.jobs.len() as f64;
            let mut steps = vec![(0.0, 0.0)];
            for (k, ms) in jcts.iter().enumerate() {
                steps.push((*ms, k as f64 / n));
                steps.push((*ms, (k + 1) as f64 / n));
            }
            steps.push((max, jcts.len() as f64 / n));
            chart.draw_series(LineSeries::new(steps, colour(vi).stroke_width(2)))?;
        }
        legend(legend_area, &variant_entries(report, Key::Line))
    })
}

/// One line of a line plot.
struct Series {
    label: String,
    points: Vec<(f64, f64)>,
    colour: RGBColor,
    dashed: bool,
}

/// Lines with a dot at each point on axes from 0 to `x_max` and 0 to
/// `y_max`, with a legend. Points that are not finite are left out.
fn line_plot(
    title: &str,
    (x_label, y_label): (&str, &str),
    (x_max, y_max): (f64, f64),
    series: &[Series],
    y_fmt: impl Fn(f64) -> String,
) -> String {
    render(title, |area, legend_area| {
        let mut chart = ChartBuilder::on(area)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..x_max, 0.0..y_max)?;
        let x_fmt = |v: &f64| {
            if x_max >= 10.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.1}")
            }
        };
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .x_labels(6)
            .y_labels(6)
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&|v| y_fmt(*v))
            .x_desc(x_label)
            .y_desc(y_label)
            .label_style(FONT)
            .axis_desc_style(FONT)
            .draw()?;
        for line in series {
            let points: Vec<(f64, f64)> = line
                .points
                .iter()
                .copied()
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .map(|(x, y)| (x.clamp(0.0, x_max), y.clamp(0.0, y_max)))
                .collect();
            let style = line.colour.stroke_width(2);
            if line.dashed {
                chart.draw_series(DashedLineSeries::new(points.clone(), 6, 4, style))?;
            } else {
                chart.draw_series(LineSeries::new(points.clone(), style))?;
            }
            chart.draw_series(
                points
                    .into_iter()
                    .map(|p| Circle::new(p, 2, line.colour.filled())),
            )?;
        }
        let entries: Vec<LegendEntry> = series
            .iter()
            .map(|line| LegendEntry {
                label: line.label.clone(),
                colour: line.colour,
                key: if line.dashed { Key::Dashed } else { Key::Line },
            })
            .collect();
        legend(legend_area, &entries)
    })
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
            colour: colour(i),
            dashed: false,
        })
        .collect();
    line_plot(
        &format!("{}: in-switch share over time", report.experiment),
        (
            &format!("time (ms; buckets of {bucket_ms:.0} ms)"),
            "chunks aggregated in the switch",
        ),
        (bucket_ms * SHARE_BUCKETS as f64, 1.0),
        &series,
        |v| format!("{:.0}%", v * 100.0),
    )
}

/// The fraction of the pool aggregating per time bucket, one line per
/// variant (sim fabric; an empty chart otherwise).
pub fn utilization_over_time(report: &ExperimentReport) -> String {
    let mut x_max: f64 = 1.0;
    let mut y_max: f64 = 0.0;
    let series: Vec<Series> = report
        .variants
        .iter()
        .enumerate()
        .filter_map(|(i, v)| {
            let c = v.cluster.as_ref()?;
            let points: Vec<(f64, f64)> = c
                .utilization_timeline
                .iter()
                .enumerate()
                .map(|(b, u)| ((b as f64 + 0.5) * c.timeline_bucket_ms, *u))
                .collect();
            x_max = x_max.max(c.utilization_timeline.len() as f64 * c.timeline_bucket_ms);
            y_max = points.iter().map(|p| p.1).fold(y_max, f64::max);
            Some(Series {
                label: v.variant.clone(),
                points,
                colour: colour(i),
                dashed: false,
            })
        })
        .collect();
    line_plot(
        &format!("{}: aggregator utilization over time", report.experiment),
        ("time (ms)", "slot-time aggregating"),
        (nice_max(x_max), nice_max(y_max.max(1e-3))),
        &series,
        |v| format!("{:.1}%", v * 100.0),
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
            colour: colour(i),
            dashed: false,
        });
        series.push(Series {
            label: format!("{} / {}: local", j.variant, j.name),
            points: points(&t.local_loss_curve),
            colour: colour(i),
            dashed: true,
        });
    }
    line_plot(
        &format!("{}: training loss", report.experiment),
        ("iteration", "cross-entropy (full data)"),
        (x_max, nice_max(y_max)),
        &series,
        |v| format!("{v:.2}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{JobReport, TrainingReport, VariantReport};

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
                    cluster: None,
                    faults: Vec::new(),
                },
                VariantReport {
                    variant: "atp".into(),
                    wall_ms: 10.0,
                    jobs: vec![job("a", "atp", 150.0), job("b", "atp", 0.0)],
                    cluster: None,
                    faults: Vec::new(),
                },
            ],
        }
    }

    /// The colour of series `i` as the SVG writes it.
    fn hex(i: usize) -> String {
        let RGBColor(r, g, b) = colour(i);
        format!("#{r:02X}{g:02X}{b:02X}")
    }

    /// `svg` parsed, or the test fails with the parser's error.
    fn parse(svg: &str) -> roxmltree::Document<'_> {
        let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{e}\n{svg}"));
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        assert_eq!(doc.root_element().attribute("width"), Some("720"));
        doc
    }

    /// Every `<text>`, trimmed and unescaped.
    fn texts(doc: &roxmltree::Document) -> Vec<String> {
        doc.descendants()
            .filter(|n| n.has_tag_name("text"))
            .map(|n| n.text().unwrap_or_default().trim().to_string())
            .collect()
    }

    fn number(node: roxmltree::Node, attribute: &str) -> f64 {
        node.attribute(attribute).unwrap().parse().unwrap()
    }

    /// Is `x` left of the legend column?
    fn in_chart(x: f64) -> bool {
        x < f64::from(SIZE.0 - LEGEND_WIDTH)
    }

    /// The points of every line drawn in the chart (not the legend) in
    /// colour `stroke`.
    fn lines(doc: &roxmltree::Document, stroke: &str) -> Vec<Vec<(f64, f64)>> {
        doc.descendants()
            .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some(stroke))
            .map(|n| {
                n.attribute("points")
                    .unwrap()
                    .split_whitespace()
                    .map(|p| {
                        let (x, y) = p.split_once(',').unwrap();
                        (x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect::<Vec<(f64, f64)>>()
            })
            .filter(|points| points.iter().all(|(x, _)| in_chart(*x)))
            .collect()
    }

    /// The `(x, top, height)` of every filled rectangle in colour `fill`.
    fn rects(doc: &roxmltree::Document, fill: &str) -> Vec<(f64, f64, f64)> {
        doc.descendants()
            .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some(fill))
            .map(|n| (number(n, "x"), number(n, "y"), number(n, "height")))
            .collect()
    }

    fn all_plots(r: &ExperimentReport) -> [String; 5] {
        [
            jct_bars(r),
            jct_cdf(r),
            share_over_time(r),
            loss_curves(r),
            utilization_over_time(r),
        ]
    }

    #[test]
    fn plots_are_svg_with_escaped_text() {
        let r = report();
        for svg in all_plots(&r) {
            assert!(svg.starts_with("<svg"));
            assert!(svg.trim_end().ends_with("</svg>"));
            assert!(svg.contains("t&lt;&amp;&gt;"));
            assert!(!svg.contains("NaN"));
            assert!(!svg.contains("inf"));
            let doc = parse(&svg);
            assert!(texts(&doc).iter().any(|t| t.starts_with("t<&>: ")));
        }
    }

    #[test]
    fn jct_bars_draw_one_bar_per_job_and_variant() {
        let r = report();
        let svg = jct_bars(&r);
        let doc = parse(&svg);
        let texts = texts(&doc);
        for label in [
            "t<&>: job completion time",
            "JCT (ms)",
            "a",
            "b",
            "esa",
            "atp",
        ] {
            assert!(texts.iter().any(|t| t == label), "{label}: {texts:?}");
        }
        let in_chart = |bars: Vec<(f64, f64, f64)>| -> Vec<(f64, f64, f64)> {
            bars.into_iter().filter(|(x, ..)| in_chart(*x)).collect()
        };
        // Two bars per variant plus its legend key.
        let esa = rects(&doc, &hex(0));
        let atp = rects(&doc, &hex(1));
        assert_eq!((esa.len(), atp.len()), (3, 3));
        let (esa, atp) = (in_chart(esa), in_chart(atp));
        assert_eq!((esa.len(), atp.len()), (2, 2));
        // Jobs in file order, esa before atp within a job's group.
        assert!(esa[0].0 < atp[0].0 && atp[0].0 < esa[1].0 && esa[1].0 < atp[1].0);
        // Heights follow the JCTs (150 ms fills the 200 ms axis to 3/4).
        assert!(atp[0].2 > esa[0].2 && esa[0].2 > esa[1].2 && esa[1].2 > 0.0);
        assert!((esa[0].2 / atp[0].2 - 120.0 / 150.0).abs() < 0.02);
        assert_eq!(atp[1].2, 0.0);
        // Bars stand on one baseline.
        assert!(
            esa.iter()
                .chain(&atp)
                .all(|b| b.1 + b.2 == esa[0].1 + esa[0].2)
        );
    }

    #[test]
    fn spine_bytes_draw_one_bar_per_variant_with_racks() {
        use crate::virtual_time::{ClusterStats, RackStats};
        let mut r = report();
        for (v, bytes) in r.variants.iter_mut().zip([1_000_000_000u64, 4_000_000_000]) {
            v.cluster = Some(ClusterStats {
                racks: Some(RackStats {
                    spine_bytes_up: bytes / 2,
                    spine_bytes_down: bytes / 2,
                    ..RackStats::default()
                }),
                ..ClusterStats::default()
            });
        }
        let doc_text = spine_bytes(&r);
        let doc = parse(&doc_text);
        let texts = texts(&doc);
        for label in [
            "t<&>: bytes on ToR-spine links",
            "GB, both ways",
            "esa",
            "atp",
        ] {
            assert!(texts.iter().any(|t| t == label), "{label}: {texts:?}");
        }
        let bar = |i: usize| -> Vec<(f64, f64, f64)> {
            rects(&doc, &hex(i))
                .into_iter()
                .filter(|(x, ..)| in_chart(*x))
                .collect()
        };
        let (esa, atp) = (bar(0), bar(1));
        assert_eq!((esa.len(), atp.len()), (1, 1));
        assert!(esa[0].0 < atp[0].0);
        // 4 GB fills the axis (nice maximum 5) to 4/5, 1 GB to 1/5.
        assert!((atp[0].2 / esa[0].2 - 4.0).abs() < 0.05, "{esa:?} {atp:?}");
    }

    #[test]
    fn jct_cdf_steps_up_at_each_finished_job() {
        let r = report();
        let svg = jct_cdf(&r);
        let doc = parse(&svg);
        let texts = texts(&doc);
        for label in ["JCT (ms)", "fraction of jobs", "esa", "atp"] {
            assert!(texts.iter().any(|t| t == label), "{label}: {texts:?}");
        }
        let esa = lines(&doc, &hex(0));
        let atp = lines(&doc, &hex(1));
        assert_eq!((esa.len(), atp.len()), (1, 1));
        // Start, two points per finished job, end.
        assert_eq!((esa[0].len(), atp[0].len()), (6, 4));
        assert!(
            esa[0]
                .windows(2)
                .all(|w| w[0].0 <= w[1].0 && w[0].1 >= w[1].1)
        );
        // atp finished one job of two: its curve ends halfway up esa's.
        let (bottom, esa_top, atp_top) = (esa[0][0].1, esa[0][5].1, atp[0][3].1);
        assert!(((bottom - atp_top) / (bottom - esa_top) - 0.5).abs() < 0.02);
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
        assert!(!svg.contains("NaN"));
        let doc = parse(&svg);
        let texts = texts(&doc);
        for label in [
            "t<&>: in-switch share over time",
            "time (ms; buckets of 5 ms)",
            "chunks aggregated in the switch",
            "100%",
            "esa",
            "atp",
        ] {
            assert!(texts.iter().any(|t| t == label), "{label}: {texts:?}");
        }
        // One line per variant, a point per bucket with results, in time
        // order: switch-only buckets at the top, the PS-only one at the
        // bottom.
        let esa = lines(&doc, &hex(0));
        let atp = lines(&doc, &hex(1));
        assert_eq!((esa.len(), atp.len()), (1, 1));
        assert_eq!((esa[0].len(), atp[0].len()), (3, 1));
        assert!(esa[0].windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(esa[0][0].1, esa[0][1].1);
        assert!(esa[0][2].1 > esa[0][0].1);
        assert!(atp[0][0].1 > esa[0][0].1 && atp[0][0].1 < esa[0][2].1);
    }

    #[test]
    fn loss_curves_draw_switch_and_local_lines() {
        let mut r = report();
        r.variants[0].jobs[0].training = Some(TrainingReport {
            loss_curve: vec![1.4, 1.0, 0.8],
            local_loss_curve: vec![1.4, 1.0, 0.79],
            ..Default::default()
        });
        let svg = loss_curves(&r);
        assert!(!svg.contains("NaN"));
        let doc = parse(&svg);
        let texts = texts(&doc);
        for label in ["iteration", "esa / a: switch", "esa / a: local"] {
            assert!(texts.iter().any(|t| t == label), "{label}: {texts:?}");
        }
        // The switch's line is one polyline through the three losses,
        // falling; the local one is dashed: several short pieces.
        let lines = lines(&doc, &hex(0));
        let solid: Vec<_> = lines.iter().filter(|l| l.len() == 3).collect();
        assert_eq!(solid.len(), 1);
        assert!(
            solid[0]
                .windows(2)
                .all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1)
        );
        assert!(lines.len() > 3, "{}", lines.len());
    }

    #[test]
    fn empty_and_degenerate_reports_still_plot() {
        let one_variant = {
            let mut r = report();
            r.variants.truncate(1);
            r
        };
        let no_jobs = {
            let mut r = report();
            r.variants[1].jobs.clear();
            r
        };
        let zero_jct = {
            let mut r = report();
            r.variants
                .iter_mut()
                .flat_map(|v| v.jobs.iter_mut())
                .for_each(|j| j.jct_ms = 0.0);
            r
        };
        let empty_training = {
            let mut r = report();
            r.variants[1].jobs[1].training = Some(TrainingReport::default());
            r.variants[0].jobs[0].results_timeline = vec![[1.0, 1.0, 0.0]];
            r
        };
        for r in [
            ExperimentReport::default(),
            one_variant,
            no_jobs,
            zero_jct,
            empty_training,
        ] {
            for svg in all_plots(&r) {
                assert!(!svg.contains("NaN"), "{svg}");
                parse(&svg);
            }
        }
    }

    #[test]
    fn nice_maxima() {
        assert_eq!(nice_max(0.0), 1.0);
        assert_eq!(nice_max(120.0), 200.0);
        assert_eq!(nice_max(90.0), 100.0);
        assert_eq!(nice_max(2300.0), 2500.0);
    }
}
