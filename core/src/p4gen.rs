//! The P4 program's constants, generated from [`crate::constants`] and the
//! codes of [`crate::wire`] and [`crate::pool`], so the data plane and the
//! Rust side cannot drift apart: `p4/include/constants.p4` is this
//! function's output, and a test fails when the file differs.
//!
//! Regenerate with `ESA_BLESS=1 cargo test -p esa-core --test p4_constants`.

use crate::constants::{
    DEFAULT_LANES, DEFAULT_POOL_SLOTS, DEFAULT_STALE_AFTER_US, ESA_UDP_PORT, ESA_VERSION,
    HEADER_LEN, MAX_FAN_IN, MAX_JOB_ID, MAX_LANES, MAX_PRIORITY, PS_WORKER_ID,
};
use crate::pool::{Mode, SLOT_COMPLETE, SLOT_HELD, SLOT_OVERFLOW};
use crate::wire::{Flags, PacketType};
use std::fmt::Write as _;

/// Lane counts the P4 program can be compiled for (`-DESA_LANES=K`).
pub const P4_LANE_COUNTS: [usize; 5] = [4, 8, 16, 32, 64];

/// The text of `p4/include/constants.p4`.
pub fn constants_p4() -> String {
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(
        w,
        "// Generated from core/src/constants.rs by esa_core::p4gen: do not edit."
    );
    let _ = writeln!(
        w,
        "// Regenerate: ESA_BLESS=1 cargo test -p esa-core --test p4_constants"
    );
    let _ = writeln!(w, "#ifndef ESA_CONSTANTS_P4\n#define ESA_CONSTANTS_P4\n");
    let _ = writeln!(
        w,
        "// Value lanes per packet (K); compile with -DESA_LANES=K to change."
    );
    let _ = writeln!(
        w,
        "#ifndef ESA_LANES\n#define ESA_LANES {DEFAULT_LANES}\n#endif"
    );
    let _ = writeln!(
        w,
        "// Aggregator slots (a power of two); -DESA_POOL_SLOTS=N to change."
    );
    let _ = writeln!(
        w,
        "#ifndef ESA_POOL_SLOTS\n#define ESA_POOL_SLOTS {DEFAULT_POOL_SLOTS}\n#endif"
    );
    let _ = writeln!(
        w,
        "// Entries of per-job tables and counters (job ids are 12 bits)."
    );
    let _ = writeln!(w, "#define ESA_MAX_JOBS {}\n", u32::from(MAX_JOB_ID) + 1);

    let _ = writeln!(w, "const bit<16> ESA_UDP_PORT = {ESA_UDP_PORT};");
    let _ = writeln!(w, "const bit<4> ESA_VERSION = {ESA_VERSION};");
    let _ = writeln!(w, "const bit<16> ESA_HEADER_LEN = {HEADER_LEN};");
    let _ = writeln!(w, "const bit<8> ESA_MAX_FAN_IN = {MAX_FAN_IN};");
    let _ = writeln!(w, "const bit<4> ESA_MAX_PRIORITY = {MAX_PRIORITY};");
    let _ = writeln!(w, "const bit<8> PS_WORKER_ID = {PS_WORKER_ID};");
    let _ = writeln!(
        w,
        "const bit<48> DEFAULT_STALE_AFTER_US = {DEFAULT_STALE_AFTER_US};\n"
    );

    let _ = writeln!(w, "// Packet types (docs/protocol.md 2.3).");
    for t in PacketType::ALL {
        let _ = writeln!(
            w,
            "const bit<4> TYPE_{} = {};",
            format!("{t:?}").to_uppercase(),
            t as u8
        );
    }
    let _ = writeln!(w, "\n// Flags (docs/protocol.md 2.4).");
    for (name, f) in [
        ("RESEND", Flags::RESEND),
        ("COLLISION", Flags::COLLISION),
        ("OVERFLOW", Flags::OVERFLOW),
        ("STALE", Flags::STALE),
        ("ECN", Flags::ECN),
    ] {
        let _ = writeln!(w, "const bit<8> FLAG_{name} = {:#04x};", f.0);
    }
    let _ = writeln!(w, "\n// slot_flags bits (docs/protocol.md 3.2).");
    for (name, v) in [
        ("COMPLETE", SLOT_COMPLETE),
        ("HELD", SLOT_HELD),
        ("OVERFLOW", SLOT_OVERFLOW),
    ] {
        let _ = writeln!(w, "const bit<8> SLOT_{name} = {v:#04x};");
    }
    let _ = writeln!(w, "\n// Job modes (docs/protocol.md 5).");
    for m in [Mode::Esa, Mode::Atp, Mode::SwitchMl] {
        let _ = writeln!(
            w,
            "const bit<2> MODE_{} = {};",
            m.to_string().to_uppercase(),
            m.code()
        );
    }

    let _ = writeln!(
        w,
        "\n// ESA_FOR_EACH_LANE(M) expands M(0) M(1) ... M(ESA_LANES - 1), so"
    );
    let _ = writeln!(w, "// lanes are generated, never copied by hand.");
    for (n, k) in P4_LANE_COUNTS.iter().enumerate() {
        let directive = if n == 0 { "#if" } else { "#elif" };
        let list: Vec<String> = (0..*k).map(|i| format!("M({i})")).collect();
        let _ = writeln!(w, "{directive} ESA_LANES == {k}");
        let _ = writeln!(w, "#define ESA_FOR_EACH_LANE(M) {}", list.join(" "));
    }
    let _ = writeln!(w, "#else");
    let counts: Vec<String> = P4_LANE_COUNTS.iter().map(|k| k.to_string()).collect();
    let _ = writeln!(
        w,
        "#error \"ESA_LANES must be one of {}\"",
        counts.join(", ")
    );
    let _ = writeln!(w, "#endif");
    debug_assert!(P4_LANE_COUNTS.iter().all(|k| *k <= MAX_LANES));
    let _ = writeln!(w, "\n#endif  // ESA_CONSTANTS_P4");
    s
}
