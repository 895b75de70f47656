//! A real (small) model to train through the switch: softmax regression
//! on a synthetic, seeded classification data set.
//!
//! The data set is generated in process from the experiment's seed: a
//! random "teacher" weight matrix labels normally distributed feature
//! vectors (argmax of its logits plus noise). Workers own contiguous
//! shards; each computes its shard's gradient sum divided by the total
//! sample count, so the all-reduced sum is the full-batch mean gradient,
//! and takes a plain gradient-descent step. [`Training`] is that loop as
//! a workload of `esa_harness::runner`, which runs a job's hosts;
//! [`train_locally`] runs the same descent in one process on float sums:
//! the reference the switch run is compared with.

use std::ops::Range;
use std::time::Duration;

use esa_core::rng::Rng;
use esa_harness::runner::{WorkerRun, Workload};
use esa_host::transport::Transport;
use esa_host::worker::Worker;

/// What to train: softmax regression (`classes = 2` is logistic
/// regression with a redundant second row).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainSpec {
    /// Input features (a bias is added).
    pub features: usize,
    /// Output classes.
    pub classes: usize,
    /// Samples in the whole data set, split over the workers.
    pub samples: usize,
    /// Gradient-descent step size.
    pub learning_rate: f64,
}

impl TrainSpec {
    /// Parameters: one weight row of `features + 1` (bias) per class.
    pub fn params(&self) -> usize {
        self.classes * (self.features + 1)
    }
}

/// The generated data set: `samples × features` inputs and their labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    features: usize,
    classes: usize,
    inputs: Vec<f64>,
    labels: Vec<usize>,
}

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut Rng) -> f64 {
    let u1 = rng.unit().max(f64::MIN_POSITIVE);
    let u2 = rng.unit();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

impl Dataset {
    /// The data set of `spec` for `seed`; the same on every worker.
    pub fn generate(spec: &TrainSpec, seed: u64) -> Dataset {
        let mut rng = Rng::new(seed ^ 0x7472_6169_6e00_0000);
        let teacher: Vec<f64> = (0..spec.params()).map(|_| normal(&mut rng)).collect();
        let mut inputs = Vec::with_capacity(spec.samples * spec.features);
        let mut labels = Vec::with_capacity(spec.samples);
        for _ in 0..spec.samples {
            let x: Vec<f64> = (0..spec.features).map(|_| normal(&mut rng)).collect();
            let mut logits = vec![0.0; spec.classes];
            logits_into(&teacher, &x, spec.features, &mut logits);
            let label = logits
                .iter()
                .map(|l| l + normal(&mut rng))
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map_or(0, |(c, _)| c);
            inputs.extend_from_slice(&x);
            labels.push(label);
        }
        Dataset {
            features: spec.features,
            classes: spec.classes,
            inputs,
            labels,
        }
    }

    /// Samples in the data set.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether it has no samples.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Worker `worker`'s contiguous shard of `workers` (sizes differ by at
    /// most one).
    pub fn shard(&self, worker: usize, workers: usize) -> Range<usize> {
        let n = self.len();
        let workers = workers.max(1);
        (n * worker / workers)..(n * (worker + 1) / workers)
    }

    fn input(&self, i: usize) -> &[f64] {
        &self.inputs[i * self.features..(i + 1) * self.features]
    }

    /// Mean cross-entropy of `params` over the whole data set.
    pub fn loss(&self, params: &[f64]) -> f64 {
        let mut logits = vec![0.0; self.classes];
        let mut total = 0.0;
        for i in 0..self.len() {
            logits_into(params, self.input(i), self.features, &mut logits);
            let lse = log_sum_exp(&logits);
            total += lse - logits[self.labels[i]];
        }
        total / self.len().max(1) as f64
    }

    /// Adds `scale ×` the cross-entropy gradient of every sample in `range`
    /// to `out` (`params.len()` elements).
    pub fn add_gradient(&self, params: &[f64], range: Range<usize>, scale: f64, out: &mut [f64]) {
        let d = self.features + 1;
        let mut logits = vec![0.0; self.classes];
        for i in range {
            let x = self.input(i);
            logits_into(params, x, self.features, &mut logits);
            let lse = log_sum_exp(&logits);
            for (c, l) in logits.iter().enumerate() {
                let p = (l - lse).exp();
                let g = (p - f64::from(u8::from(c == self.labels[i]))) * scale;
                let row = &mut out[c * d..(c + 1) * d];
                for (w, xi) in row.iter_mut().zip(x) {
                    *w += g * xi;
                }
                row[self.features] += g;
            }
        }
    }
}

fn logits_into(params: &[f64], x: &[f64], features: usize, out: &mut [f64]) {
    let d = features + 1;
    for (c, l) in out.iter_mut().enumerate() {
        let row = &params[c * d..(c + 1) * d];
        *l = row[features] + row.iter().zip(x).map(|(w, xi)| w * xi).sum::<f64>();
    }
}

fn log_sum_exp(v: &[f64]) -> f64 {
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    max + v.iter().map(|l| (l - max).exp()).sum::<f64>().ln()
}

/// One worker's contribution to the step: its shard's gradient sum over
/// the total sample count, as float32 for the all-reduce.
pub fn shard_gradient(
    data: &Dataset,
    params: &[f64],
    worker: usize,
    workers: usize,
    out: &mut [f32],
) {
    let mut g = vec![0.0; params.len()];
    let scale = 1.0 / data.len().max(1) as f64;
    data.add_gradient(params, data.shard(worker, workers), scale, &mut g);
    for (o, v) in out.iter_mut().zip(&g) {
        *o = *v as f32;
    }
}

/// The full-batch mean gradient in float64.
pub fn full_gradient(data: &Dataset, params: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; params.len()];
    data.add_gradient(
        params,
        0..data.len(),
        1.0 / data.len().max(1) as f64,
        &mut g,
    );
    g
}

/// A gradient-descent step.
pub fn step(params: &mut [f64], gradient: impl IntoIterator<Item = f64>, learning_rate: f64) {
    for (p, g) in params.iter_mut().zip(gradient) {
        *p -= learning_rate * g;
    }
}

/// Trains `iterations` full-batch steps from zero in one process (float64
/// sums) and returns the loss before the first step and after each.
pub fn train_locally(spec: &TrainSpec, data: &Dataset, iterations: u32) -> Vec<f64> {
    let mut params = vec![0.0; spec.params()];
    let mut curve = vec![data.loss(&params)];
    for _ in 0..iterations {
        let g = full_gradient(data, &params);
        step(&mut params, g, spec.learning_rate);
        curve.push(data.loss(&params));
    }
    curve
}

/// The seed of job `job`'s training data set.
pub fn training_seed(seed: u64, job: u16) -> u64 {
    seed ^ (u64::from(job) << 32)
}

/// A job training its model through the switch, every worker on its own
/// shard of the same data set: each iteration waits `compute`, computes
/// the gradient of its shard, all-reduces it (the sum of shard sums over
/// the sample count: the full-batch mean) and takes a descent step. Worker
/// 0 also evaluates the full-data loss and the all-reduce's error against
/// the float64 gradient.
#[derive(Debug, Clone)]
pub struct Training {
    /// The model and its step size.
    pub spec: TrainSpec,
    /// The data set, the same on every worker.
    pub data: Dataset,
    /// Workers of the job (the shards).
    pub workers: u8,
    /// Iterations (descent steps).
    pub iterations: u32,
    /// Compute time before each all-reduce.
    pub compute: Duration,
}

/// What one worker's training left.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrainingOutcome {
    /// The final parameters (none if it stopped early).
    pub params: Option<Vec<f64>>,
    /// Worker 0: the loss before the first step and after each.
    pub loss_curve: Vec<f64>,
    /// Worker 0: the largest difference between an all-reduced gradient
    /// element and the float64 full-batch gradient.
    pub max_gradient_error: f64,
}

impl Workload for Training {
    type Extra = TrainingOutcome;

    fn run<T: Transport>(&self, worker: &mut Worker<T>, run: &mut WorkerRun<'_, TrainingOutcome>) {
        let (data, spec) = (&self.data, &self.spec);
        let w = usize::from(run.worker_id());
        let mut params = vec![0.0f64; spec.params()];
        let mut gradient = vec![0f32; spec.params()];
        let first = w == 0;
        if first {
            run.extra().loss_curve.push(data.loss(&params));
        }
        for _ in 0..self.iterations {
            if !self.compute.is_zero() {
                std::thread::sleep(self.compute);
            }
            shard_gradient(data, &params, w, usize::from(self.workers), &mut gradient);
            // In place: the gradient buffer is summed without a copy.
            match worker.allreduce_owned(std::mem::take(&mut gradient)) {
                Ok((sum, _)) => gradient = sum,
                Err(e) => return run.fail(e),
            }
            if first {
                let exact = full_gradient(data, &params);
                let error = gradient
                    .iter()
                    .zip(&exact)
                    .map(|(g, e)| (f64::from(*g) - e).abs())
                    .fold(0.0, f64::max);
                let out = run.extra();
                out.max_gradient_error = out.max_gradient_error.max(error);
            }
            step(
                &mut params,
                gradient.iter().map(|g| f64::from(*g)),
                spec.learning_rate,
            );
            if first {
                run.extra().loss_curve.push(data.loss(&params));
            }
            run.iteration_done(0);
        }
        run.extra().params = Some(params);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> TrainSpec {
        TrainSpec {
            features: 8,
            classes: 3,
            samples: 300,
            learning_rate: 0.5,
        }
    }

    #[test]
    fn the_data_set_is_deterministic_and_seeded() {
        let a = Dataset::generate(&spec(), 1);
        assert_eq!(a, Dataset::generate(&spec(), 1));
        assert_ne!(a, Dataset::generate(&spec(), 2));
        assert_eq!(a.len(), 300);
        // Every class occurs.
        for c in 0..3 {
            assert!(a.labels.contains(&c), "class {c}");
        }
    }

    #[test]
    fn shards_cover_the_data_set_once() {
        let a = Dataset::generate(&spec(), 1);
        let shards: Vec<Range<usize>> = (0..7).map(|w| a.shard(w, 7)).collect();
        assert_eq!(shards[0].start, 0);
        assert_eq!(shards[6].end, 300);
        for pair in shards.windows(2) {
            assert_eq!(pair[0].end, pair[1].start);
        }
    }

    #[test]
    fn shard_gradients_sum_to_the_full_gradient() {
        let s = spec();
        let a = Dataset::generate(&s, 3);
        let params: Vec<f64> = (0..s.params()).map(|i| (i as f64 * 0.37).sin()).collect();
        let mut sum = vec![0.0f64; s.params()];
        let mut part = vec![0.0f32; s.params()];
        for w in 0..3 {
            shard_gradient(&a, &params, w, 3, &mut part);
            for (t, p) in sum.iter_mut().zip(&part) {
                *t += f64::from(*p);
            }
        }
        for (got, want) in sum.iter().zip(full_gradient(&a, &params)) {
            assert!((got - want).abs() < 1e-6, "{got} vs {want}");
        }
    }

    #[test]
    fn the_gradient_matches_finite_differences() {
        let s = spec();
        let a = Dataset::generate(&s, 5);
        let params: Vec<f64> = (0..s.params()).map(|i| (i as f64 * 0.11).cos()).collect();
        let g = full_gradient(&a, &params);
        for k in [0, 5, 8, 13, s.params() - 1] {
            let h = 1e-5;
            let mut up = params.clone();
            up[k] += h;
            let mut down = params.clone();
            down[k] -= h;
            let numeric = (a.loss(&up) - a.loss(&down)) / (2.0 * h);
            assert!((numeric - g[k]).abs() < 1e-6, "{k}: {numeric} vs {}", g[k]);
        }
    }

    #[test]
    fn local_training_lowers_the_loss() {
        let s = spec();
        let a = Dataset::generate(&s, 1);
        let curve = train_locally(&s, &a, 30);
        assert_eq!(curve.len(), 31);
        assert!((curve[0] - 3f64.ln()).abs() < 1e-12);
        assert!(curve[30] < 0.7 * curve[0], "{curve:?}");
    }
}
