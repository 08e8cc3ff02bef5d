//! Any byte stream fed to the frame reader returns (never panics), and every
//! envelope it reads writes back to a frame that reads as the same envelope.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proto::{FrameError, FrameReader, FrameWriter};

fuzz_target!(|data: &[u8]| {
    let mut reader = FrameReader::new(data);
    loop {
        match reader.read() {
            Ok(envelope) => {
                let mut writer = FrameWriter::new(Vec::new());
                if writer.write(&envelope).is_ok() {
                    let bytes = writer.into_inner();
                    let again = proto::read_frame(&mut &bytes[..]);
                    assert!(matches!(again, Ok(ref e) if *e == envelope), "{envelope:?} did not round-trip");
                }
            }
            Err(err) if err.is_recoverable() => {}
            Err(FrameError::Closed) | Err(_) => break,
        }
    }
});
