//! Feeds arbitrary text to the P4 front end (preprocessor, lexer, parser).
//! Any input must give a program or a diagnostic, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // parse_source only resolves the built-in headers, so includes in the
    // input cannot reach the file system.
    match p4sim::front::parse_source("fuzz.p4", &text) {
        Ok(program) => {
            // Spans must stay inside the files they name.
            for decl in &program.declarations {
                let span = decl.span();
                let file = program.sources.get(span.file).expect("span names a known file");
                assert!(span.lo <= span.hi && span.hi as usize <= file.text.len());
            }
        }
        Err(diagnostic) => {
            let _ = diagnostic.to_string();
        }
    }
});
