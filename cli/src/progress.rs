//! Progress on long work (`run`, `ci`, `fuzz`, `audit`, `doctor`,
//! `conformance`, `load`), always on stderr, so a document on stdout stays
//! clean:
//!
//! - on a terminal, one live line redrawn a few times a second: what is
//!   running, how many items are done of how many, and how long the current
//!   one has taken (`[3/12] echo · 4.2 s`);
//! - elsewhere (a CI log), one line per finished item, with how it ended
//!   and how long it took (`mcpcheck fuzz: [3/12] echo: 100 inputs, healthy
//!   (4.2 s)`);
//! - nothing with `--quiet`.
//!
//! Whatever prints on a terminal while the live line is up goes through
//! [`Progress::suspend`], which takes the line away and puts it back.

use std::io::{IsTerminal, Write as _};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Args;

/// `--quiet`.
#[derive(Clone, Copy, Debug, Default, Args)]
pub struct ProgressArgs {
    /// Show no progress on stderr (on a terminal a live line says what is
    /// running, how many are done of how many, and for how long; elsewhere
    /// a line per finished item).
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A live line on a terminal.
    Live,
    /// A line per finished item.
    Lines,
    /// Nothing.
    Off,
}

impl Mode {
    /// Live on a terminal's stderr (unless `TERM=dumb`), lines elsewhere,
    /// nothing when `quiet`.
    pub fn of(quiet: bool) -> Mode {
        if quiet {
            Mode::Off
        } else if std::io::stderr().is_terminal()
            && std::env::var("TERM").map_or(true, |t| t != "dumb")
        {
            Mode::Live
        } else {
            Mode::Lines
        }
    }
}

struct State {
    mode: Mode,
    /// Said before each line: `mcpcheck fuzz: `.
    prefix: String,
    /// A phase, said after the prefix: `retry 1 of 2: `.
    phase: String,
    total: usize,
    done: usize,
    /// What is running, with when it started and a detail (`case 37/100`).
    running: Vec<(String, Instant, String)>,
    /// Whether the live line is on the screen.
    drawn: bool,
    /// Whether finished items get a line in [`Mode::Lines`].
    lines: bool,
    /// Whether `done` counts units of the running item ([`Progress::tick`])
    /// rather than finished items.
    units: bool,
}

impl State {
    fn clear(&mut self) {
        if self.drawn {
            let mut e = std::io::stderr().lock();
            let _ = e.write_all(b"\r\x1b[K");
            let _ = e.flush();
            self.drawn = false;
        }
    }

    fn draw(&mut self) {
        if self.mode != Mode::Live {
            return;
        }
        let Some((item, since, detail)) = self.running.first() else {
            self.clear();
            return;
        };
        let mut line = format!(
            "{}{}[{}/{}] {item}",
            self.prefix,
            self.phase,
            if self.units {
                self.done
            } else {
                (self.done + 1).min(self.total.max(1))
            },
            self.total
        );
        if !detail.is_empty() {
            line.push_str(&format!(" · {detail}"));
        }
        line.push_str(&format!(" · {}", seconds(since.elapsed())));
        if self.running.len() > 1 {
            line.push_str(&format!(" (+{} running)", self.running.len() - 1));
        }
        let line = fit(&line, width());
        let mut e = std::io::stderr().lock();
        let _ = write!(e, "\r\x1b[K{line}");
        let _ = e.flush();
        self.drawn = true;
    }
}

/// `4.2 s`, or `0.3 s`.
fn seconds(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// The terminal's width from `COLUMNS`, else 80: a line that wraps cannot
/// be redrawn in place.
fn width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|w| *w >= 20)
        .unwrap_or(80)
}

/// `line` cut to `width - 1` characters (with `…`), control characters
/// shown as spaces.
fn fit(line: &str, width: usize) -> String {
    let clean: String = line
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let max = width.saturating_sub(1);
    if clean.chars().count() <= max {
        return clean;
    }
    let mut cut: String = clean.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Progress of one command. Cloning shares it.
#[derive(Clone)]
pub struct Progress {
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    /// A part of another command's progress (`doctor`'s audit): its items
    /// are said as the detail of that part, and counted by none.
    part_of: Option<Arc<(Progress, String)>>,
}

impl Progress {
    /// Progress over `total` items, each line starting with `prefix`
    /// (`mcpcheck fuzz: `), shown as `mode` says. In [`Mode::Live`] a
    /// thread redraws the line until [`Progress::finish`] (or the last
    /// clone is dropped).
    pub fn new(mode: Mode, prefix: &str, total: usize) -> Progress {
        let p = Progress {
            state: Arc::new(Mutex::new(State {
                mode,
                prefix: prefix.to_string(),
                phase: String::new(),
                total,
                done: 0,
                running: Vec::new(),
                drawn: false,
                lines: true,
                units: false,
            })),
            stop: Arc::new(AtomicBool::new(false)),
            part_of: None,
        };
        if mode == Mode::Live {
            let state = Arc::downgrade(&p.state);
            let stop = p.stop.clone();
            std::thread::spawn(move || {
                while !stop.load(Ordering::Acquire) {
                    std::thread::sleep(Duration::from_millis(200));
                    let Some(state) = state.upgrade() else { break };
                    if stop.load(Ordering::Acquire) {
                        break;
                    }
                    if let Ok(mut s) = state.lock() {
                        s.draw();
                    };
                }
            });
        }
        p
    }

    /// Progress that shows nothing.
    pub fn off() -> Progress {
        Progress::new(Mode::Off, "", 0)
    }

    /// The progress of `part`, one of this progress's items, for the work
    /// it runs: what that work starts is shown as the part's detail
    /// (`[3/6] audit · tool echo · 4.2 s`).
    pub fn within(&self, part: &str) -> Progress {
        Progress {
            part_of: Some(Arc::new((self.clone(), part.to_string()))),
            ..Progress::off()
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> Option<R> {
        self.state.lock().ok().map(|mut s| f(&mut s))
    }

    /// Whether finished items get a line when not on a terminal (a command
    /// whose stdout already says each one, as `run`'s text report does,
    /// turns them off).
    pub fn set_lines(&self, lines: bool) {
        self.with(|s| s.lines = lines);
    }

    /// A new count: `total` items, none done, under `phase` (`retry 1 of 2`;
    /// empty for none).
    pub fn restart(&self, total: usize, phase: &str) {
        if self.part_of.is_some() {
            return;
        }
        self.with(|s| {
            s.total = total;
            s.done = 0;
            s.units = false;
            s.running.clear();
            s.phase = if phase.is_empty() {
                String::new()
            } else {
                format!("{phase}: ")
            };
            s.draw();
        });
    }

    /// More items than first counted (a listing read after the start).
    pub fn set_total(&self, total: usize) {
        if self.part_of.is_some() {
            return;
        }
        self.with(|s| s.total = total);
    }

    /// `item` starts.
    pub fn start(&self, item: &str) {
        if let Some(p) = &self.part_of {
            p.0.detail(&p.1, item);
            return;
        }
        self.with(|s| {
            s.running
                .push((item.to_string(), Instant::now(), String::new()));
            s.draw();
        });
    }

    /// What a running item is at (`case 37/100`).
    pub fn detail(&self, item: &str, detail: &str) {
        if let Some(p) = &self.part_of {
            p.0.detail(&p.1, &format!("{item} · {detail}"));
            return;
        }
        self.with(|s| {
            if let Some(r) = s.running.iter_mut().find(|r| r.0 == item) {
                r.2 = detail.to_string();
            }
        });
    }

    /// `item` is done; `outcome` says how it ended (`PASS`, `healthy`), for
    /// the line it gets when not on a terminal.
    pub fn finish_item(&self, item: &str, outcome: &str) {
        if self.part_of.is_some() {
            return;
        }
        self.with(|s| {
            let took = match s.running.iter().position(|r| r.0 == item) {
                Some(i) => s.running.remove(i).1.elapsed(),
                None => Duration::ZERO,
            };
            if !s.units {
                s.done += 1;
            }
            if s.mode == Mode::Lines && s.lines {
                let line = format!(
                    "{}{}[{}/{}] {item}: {outcome} ({})\n",
                    s.prefix,
                    s.phase,
                    s.done,
                    s.total,
                    seconds(took)
                );
                let mut e = std::io::stderr().lock();
                let _ = e.write_all(line.as_bytes());
            }
            s.draw();
        });
    }

    /// Work counted in units rather than items (`load`'s requests): `done`
    /// of the total so far, for the running `item`. Not on a terminal, a
    /// line is said each time another tenth is done.
    pub fn tick(&self, item: &str, done: usize, unit: &str) {
        if let Some(p) = &self.part_of {
            p.0.detail(&p.1, &format!("{done} {unit}"));
            return;
        }
        self.with(|s| {
            let before = s.done;
            s.done = done;
            s.units = true;
            if let Some(r) = s.running.iter_mut().find(|r| r.0 == item) {
                r.2 = format!("{done} {unit}");
            }
            let tenth = |n: usize| (n * 10).checked_div(s.total).unwrap_or(0);
            if s.mode == Mode::Lines && s.lines && tenth(done) > tenth(before) {
                let since = s.running.first().map_or(Duration::ZERO, |r| r.1.elapsed());
                let line = format!(
                    "{}{}[{done}/{}] {item} ({})\n",
                    s.prefix,
                    s.phase,
                    s.total,
                    seconds(since)
                );
                let mut e = std::io::stderr().lock();
                let _ = e.write_all(line.as_bytes());
            }
        });
    }

    /// Runs `f` (which prints) with the live line out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match self.state.lock() {
            Ok(mut s) => {
                s.clear();
                let r = f();
                s.draw();
                r
            }
            Err(_) => f(),
        }
    }

    /// The end: the live line goes away and is not drawn again.
    pub fn finish(&self) {
        if self.part_of.is_some() {
            return;
        }
        self.stop.store(true, Ordering::Release);
        self.with(|s| {
            s.running.clear();
            s.clear();
            s.mode = Mode::Off;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_fit_the_terminal() {
        assert_eq!(fit("short", 80), "short");
        assert_eq!(fit("a\tb\nc", 80), "a b c");
        let cut = fit(&"x".repeat(100), 40);
        assert_eq!(cut.chars().count(), 39);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn quiet_is_off_and_counting_goes_on_without_a_terminal() {
        assert_eq!(Mode::of(true), Mode::Off);
        let p = Progress::new(Mode::Off, "x: ", 2);
        p.start("a");
        p.finish_item("a", "ok");
        assert_eq!(p.with(|s| (s.done, s.running.len())), Some((1, 0)));
        p.restart(5, "retry 1 of 2");
        assert_eq!(
            p.with(|s| (s.done, s.total, s.phase.clone())),
            Some((0, 5, "retry 1 of 2: ".to_string()))
        );
        p.finish();
        assert_eq!(p.with(|s| s.mode), Some(Mode::Off));
    }

    #[test]
    fn a_part_says_its_work_as_its_detail() {
        let doctor = Progress::new(Mode::Off, "", 3);
        doctor.start("audit");
        let audit = doctor.within("audit");
        audit.set_total(10);
        audit.start("tool echo");
        assert_eq!(
            doctor.with(|s| (s.total, s.running[0].2.clone())),
            Some((3, "tool echo".to_string()))
        );
        audit.detail("tool echo", "case 3/20");
        audit.finish_item("tool echo", "healthy");
        audit.finish();
        assert_eq!(
            doctor.with(|s| (s.done, s.running[0].2.clone())),
            Some((0, "tool echo · case 3/20".to_string()))
        );
        doctor.finish_item("audit", "2 findings");
        assert_eq!(doctor.with(|s| s.done), Some(1));
    }
}
