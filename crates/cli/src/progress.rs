//! The progress bar of long runs (matches, tournaments, tuning, self-play).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A progress bar on stderr when it is a terminal; hidden otherwise.
pub fn progress_bar(total: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
    if std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::stderr());
    }
    let template = format!("{{bar:30}} {{pos}}/{{len}} {unit} {{per_sec}} eta {{eta}} {{msg}}");
    bar.set_style(ProgressStyle::with_template(&template).expect("a valid template"));
    bar
}
