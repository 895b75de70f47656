//! Any bytes as one unit of a receive ring, either layout: the walk
//! neither panics nor reads outside the unit, passes on only bytes of the
//! unit, and passes on no more frames than the unit could hold.
#![no_main]

use esa_switch::afpacket::{RingKind, walk_unit};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&kind, unit)) = data.split_first() else {
        return;
    };
    let kind = if kind & 1 == 0 {
        RingKind::Frames
    } else {
        RingKind::Blocks
    };
    let range = unit.as_ptr_range();
    let mut seen = 0;
    let walked = walk_unit(kind, unit, &mut |frame: &[u8], _stamp| {
        let inside = frame.as_ptr_range();
        assert!(range.start <= inside.start && inside.end <= range.end);
        seen += 1;
    });
    assert_eq!(walked.delivered, seen);
    // Every frame passed on or skipped has a header of its own in the unit.
    assert!(walked.delivered + walked.oversized as usize <= unit.len());
    if kind == RingKind::Frames {
        assert!(walked.delivered + walked.oversized as usize <= 1);
    }
});
