//! Any bytes, any lane count: parsing returns a typed error or a frame that
//! emits back to the same header and lanes.
#![no_main]

use esa_core::wire::{EsaRepr, FrameRepr, ParsedFrame};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&lanes, bytes)) = data.split_first() else { return };
    let lanes = usize::from(lanes % 65);
    let _ = EsaRepr::from_payload(bytes, lanes);
    if let Ok(p) = ParsedFrame::parse(bytes, lanes) {
        let values: Vec<i32> = p.payload.values().collect();
        let repr = FrameRepr {
            src_mac: p.eth.src,
            dst_mac: p.eth.dst,
            src_ip: p.ip.src,
            dst_ip: p.ip.dst,
            esa: p.esa,
        };
        let again = repr.emit(&values, lanes);
        let q = ParsedFrame::parse(&again, lanes).expect("an emitted frame parses");
        assert_eq!(q.esa, p.esa);
        assert_eq!(q.payload.values().collect::<Vec<_>>(), values);
    }
});
