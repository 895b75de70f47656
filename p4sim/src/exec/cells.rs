//! The cells of stateful externs: a register's ([`RegisterCells`]) and a
//! meter's ([`MeterCell`], with the colors it gives). The switch's
//! [`Runtime`](crate::exec::state::Runtime) holds them, and a table entry
//! its direct meter's cell.

use crate::exec::bits::Bits;

/// Color codes of v1model meters.
pub const GREEN: u64 = 0;
/// Yellow.
pub const YELLOW: u64 = 1;
/// Red.
pub const RED: u64 = 2;

/// A two-rate three-color meter cell (RFC 2698, as BMv2 implements it).
/// Until rates are configured every packet is GREEN.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeterCell {
    /// Committed and peak rates (units per microsecond) and bursts.
    pub rates: Option<[(f64, u64); 2]>,
    tokens: [f64; 2],
    last_us: u64,
}

impl MeterCell {
    /// Configures the rates (committed first); buckets start full.
    pub fn set_rates(&mut self, rates: [(f64, u64); 2], now_us: u64) {
        self.rates = Some(rates);
        self.tokens = [rates[0].1 as f64, rates[1].1 as f64];
        self.last_us = now_us;
    }

    /// Meters `units` at time `now_us`, returning the color.
    pub fn execute(&mut self, units: u64, now_us: u64) -> u64 {
        let Some(rates) = self.rates else {
            return GREEN;
        };
        let dt = now_us.saturating_sub(self.last_us) as f64;
        self.last_us = self.last_us.max(now_us);
        for (i, (rate, burst)) in rates.iter().enumerate() {
            self.tokens[i] = (self.tokens[i] + rate * dt).min(*burst as f64);
        }
        let u = units as f64;
        if self.tokens[1] < u {
            RED
        } else if self.tokens[0] < u {
            self.tokens[1] -= u;
            YELLOW
        } else {
            self.tokens[0] -= u;
            self.tokens[1] -= u;
            GREEN
        }
    }
}

/// Register storage (by default, no narrow cells).
#[derive(Debug, Clone, PartialEq)]
pub enum RegisterCells {
    /// Cells of width up to 64.
    Narrow(Vec<u64>),
    /// Wider cells.
    Wide(Vec<Bits>),
}

impl Default for RegisterCells {
    fn default() -> RegisterCells {
        RegisterCells::Narrow(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meters_color_by_rate() {
        let mut m = MeterCell::default();
        assert_eq!(m.execute(100, 0), GREEN);
        // committed 1 unit/us burst 2, peak 2 units/us burst 4
        m.set_rates([(1.0, 2), (2.0, 4)], 0);
        assert_eq!(m.execute(2, 0), GREEN);
        assert_eq!(m.execute(2, 0), YELLOW);
        assert_eq!(m.execute(1, 0), RED);
        assert_eq!(m.execute(2, 10), GREEN);
    }
}
