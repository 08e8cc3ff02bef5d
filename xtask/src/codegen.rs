pub enum Mode { Write, Check } pub fn run(_: &std::path::Path, _: Mode) -> anyhow::Result<()> { Ok(()) }
