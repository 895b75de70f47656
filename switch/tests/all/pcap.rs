//! Capture files: one classic pcap file per port, both directions.

use crate::common::*;
use esa_switch::{Program, Source, Switch, SwitchConfig};
use p4runtime_proto::p4::v1::update::Type::Insert;

#[test]
fn one_pcap_file_per_port_with_both_directions() {
    let dir = std::env::temp_dir().join(format!("esa-switch-pcap-{}", std::process::id()));
    let program = Program::load(Source::File(&l2_path()), &[]).unwrap();
    let p4info = program.p4info.clone();
    let ids = Ids(&p4info);
    let (switch, ports) = Switch::builder(SwitchConfig {
        pcap_dir: Some(dir.clone()),
        ..SwitchConfig::default()
    })
    .program(program)
    .memory_ports([1, 2])
    .build()
    .unwrap();
    let entry = table_entity(dmac_entry(&ids, &[0xb], "MyIngress.forward", &[(1, &[2])]));
    switch.with_device(|d| d.unwrap().write(Insert, &entry).unwrap());
    let f = frame([0, 0, 0, 0, 0, 0xb], [0, 0, 0, 0, 0, 0xa], 0x88b5, &[7; 46]);
    ports[0].send(&f).unwrap();
    assert_eq!(ports[1].recv_timeout(TIMEOUT), Some(f.clone()));
    drop(switch);
    for port in [1, 2] {
        let bytes = std::fs::read(dir.join(format!("port{port}.pcap"))).unwrap();
        // Global header: magic, version 2.4, snaplen, LINKTYPE_ETHERNET.
        assert_eq!(&bytes[..4], &0xa1b2_c3d4u32.to_le_bytes());
        assert_eq!(&bytes[4..8], &[2, 0, 4, 0]);
        assert_eq!(&bytes[20..24], &1u32.to_le_bytes());
        // One record: 16-byte header, then the frame as it crossed the port.
        let record = &bytes[24..];
        assert_eq!(&record[8..12], &(f.len() as u32).to_le_bytes());
        assert_eq!(&record[16..], f.as_slice(), "port {port}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
