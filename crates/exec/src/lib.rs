//! The tool executor: runs `tool.invoke` calls against the tool set an
//! operator configures ([`config`]), one child per call ([`run`]), and renders
//! a capture as the content a model reads ([`render`]). [`serve`] answers
//! calls arriving in frames.

pub mod config;
mod keywords;
pub mod render;
pub mod run;
pub mod serve;

pub use config::{load, ConfigError, Loaded, Tool, ToolSet};
pub use run::execute;
