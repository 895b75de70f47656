//! Seeded link faults: loss, duplication and delay (hence reordering).
//! One rule decides the fate of every datagram or frame wherever faults are
//! injected: the simulator's links ([`crate::sim`]), the hosts' in-memory
//! network and their fault-injecting frame links (esa-host's
//! `MemNetwork` and `FaultyLink`).

use std::time::Duration;

use crate::rng::Rng;

/// Seeded faults applied to every datagram (or frame) a link carries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaultConfig {
    /// Seed of the injector's choices (mixed with what identifies the
    /// link: the sender's address, a stream number).
    pub seed: u64,
    /// Probability a copy is lost.
    pub loss: f64,
    /// Probability a datagram is delivered twice.
    pub duplicate: f64,
    /// Each copy is delayed by a uniform `0..=max_delay` (whole
    /// nanoseconds); datagrams overtake each other.
    pub max_delay: Duration,
}

/// What the faults did to one datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Fate {
    /// It was copied once more.
    pub duplicated: bool,
    /// Copies lost (0, 1 or 2).
    pub lost: u8,
    /// The delay of each copy that goes on, in the order drawn (filled
    /// from the front).
    pub delays: [Option<Duration>; 2],
}

impl Fate {
    /// Copies that go on (0, 1 or 2).
    pub fn delivered(&self) -> u8 {
        self.delays.iter().flatten().count() as u8
    }
}

impl FaultConfig {
    /// No faults.
    pub const NONE: FaultConfig = FaultConfig {
        seed: 0,
        loss: 0.0,
        duplicate: 0.0,
        max_delay: Duration::ZERO,
    };

    /// Loss alone, with probability `loss` per frame.
    pub fn loss(seed: u64, loss: f64) -> FaultConfig {
        FaultConfig {
            seed,
            loss,
            ..FaultConfig::NONE
        }
    }

    /// Whether nothing is ever lost, duplicated or delayed.
    pub fn is_none(&self) -> bool {
        self.loss <= 0.0 && self.duplicate <= 0.0 && self.max_delay.is_zero()
    }

    /// Decides one datagram's fate with draws from `rng`, in this order:
    /// duplicated with probability `duplicate`; then for each copy, lost
    /// with probability `loss`, else delayed by a uniform
    /// `0..=max_delay`.
    pub fn apply(&self, rng: &mut Rng) -> Fate {
        let duplicated = rng.chance(self.duplicate);
        let mut fate = Fate {
            duplicated,
            ..Fate::default()
        };
        let max_ns = u64::try_from(self.max_delay.as_nanos()).unwrap_or(u64::MAX - 1);
        for _ in 0..1 + u8::from(duplicated) {
            if rng.chance(self.loss) {
                fate.lost += 1;
                continue;
            }
            let free = usize::from(fate.delays[0].is_some());
            fate.delays[free] = Some(Duration::from_nanos(rng.range(0, max_ns)));
        }
        fate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_makes_the_same_choices() {
        let faults = FaultConfig {
            seed: 5,
            loss: 0.3,
            duplicate: 0.2,
            max_delay: Duration::from_micros(7),
        };
        let fates = |seed| {
            let mut rng = Rng::new(seed);
            (0..500)
                .map(|_| faults.apply(&mut rng))
                .collect::<Vec<Fate>>()
        };
        assert_eq!(fates(1), fates(1));
        assert_ne!(fates(1), fates(2));
        let all = fates(1);
        assert!(
            all.iter()
                .all(|f| f.lost + f.delivered() == 1 + u8::from(f.duplicated))
        );
        assert!(
            all.iter()
                .all(|f| f.delays[0].is_some() || f.delays[1].is_none())
        );
        let delays: Vec<Duration> = all.iter().flat_map(|f| f.delays).flatten().collect();
        assert!(delays.iter().all(|d| *d <= faults.max_delay));
        assert!(all.iter().any(|f| f.duplicated) && all.iter().any(|f| f.lost > 0));
        // Roughly the configured rates (500 draws; loose bounds).
        let lost: usize = all.iter().map(|f| usize::from(f.lost)).sum();
        assert!((80..230).contains(&lost), "{lost}");
    }

    #[test]
    fn no_faults_deliver_every_datagram_once_at_once() {
        let mut rng = Rng::new(3);
        for _ in 0..100 {
            let fate = FaultConfig::NONE.apply(&mut rng);
            assert_eq!(
                fate,
                Fate {
                    duplicated: false,
                    lost: 0,
                    delays: [Some(Duration::ZERO), None],
                }
            );
            assert_eq!(fate.delivered(), 1);
        }
        assert!(FaultConfig::NONE.is_none() && !FaultConfig::loss(1, 0.1).is_none());
    }
}
