//! How `molang test` results read: one line per test, failures in words, a summary; JSON
//! lines for tools; JUnit XML (through quick-junit) for CI dashboards.

use super::{Failure, Outcome};

fn failure_text(f: &Failure) -> String {
    let when = match (f.frame, f.t) {
        (Some(fr), Some(t)) => {
            format!(" (frame {fr}, t = {})", crate::interp::value::format_f32(t))
        }
        _ => String::new(),
    };
    // Names in these come from packs and test files: no control character reaches the
    // terminal (line breaks in the detail are its own layout).
    format!(
        "  {}: expected {}{when}\n    {}\n",
        crate::text::one_line(&f.location),
        crate::text::one_line(&f.what),
        crate::text::terminal_safe(&f.detail).replace('\n', "\n    ")
    )
}

/// `ok    name (12 ms)` / `FAILED name (12 ms)`, then the outcome's notes, one a line.
pub fn line(o: &Outcome) -> String {
    let notes: String = (o.notes.iter())
        .map(|n| format!("\n  note: {}", crate::text::terminal_safe(n)))
        .collect();
    format!(
        "{} {} ({:.0} ms){}{notes}",
        if o.passed() { "ok    " } else { "FAILED" },
        crate::text::one_line(&o.name),
        o.seconds * 1e3,
        if o.blessed.is_empty() {
            String::new()
        } else {
            format!(
                ", wrote {}",
                o.blessed
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    )
}

/// The failures of every failed test, then the summary line.
pub fn human_tail(outcomes: &[Outcome]) -> String {
    let mut s = String::new();
    for o in outcomes.iter().filter(|o| !o.passed()) {
        s.push_str(&format!(
            "\n--- {} ({})\n",
            crate::text::one_line(&o.name),
            crate::text::one_line(&o.file.display().to_string())
        ));
        for f in &o.failures {
            s.push_str(&failure_text(f));
        }
    }
    s.push_str(&format!("\n{}\n", summary(outcomes)));
    s
}

/// `N passed, N failed` (the plain line CI runners read).
pub fn summary(outcomes: &[Outcome]) -> String {
    let failed = outcomes.iter().filter(|o| !o.passed()).count();
    format!(
        "test result: {} passed, {failed} failed",
        outcomes.len() - failed
    )
}

pub fn json_line(o: &Outcome) -> String {
    serde_json::json!({
        "name": o.name,
        "file": o.file.display().to_string(),
        "status": if o.passed() { "ok" } else { "failed" },
        "time_ms": (o.seconds * 1e3 * 1000.0).round() / 1000.0,
        "notes": o.notes,
        "failures": o.failures.iter().map(|f| serde_json::json!({
            "location": f.location, "expected": f.what, "frame": f.frame, "t": f.t, "detail": f.detail,
        })).collect::<Vec<_>>(),
    })
    .to_string()
}

pub fn json_summary(outcomes: &[Outcome]) -> String {
    let failed = outcomes.iter().filter(|o| !o.passed()).count();
    serde_json::json!({"summary": {"tests": outcomes.len(), "passed": outcomes.len() - failed, "failed": failed}})
        .to_string()
}

/// JUnit XML: one suite per test file, one case per test.
pub fn junit(outcomes: &[Outcome]) -> Result<String, crate::Error> {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let mut report = Report::new("molang test");
    let mut files: Vec<&std::path::Path> = outcomes.iter().map(|o| o.file.as_path()).collect();
    files.dedup();
    for file in files {
        let mut suite = TestSuite::new(file.display().to_string());
        for o in outcomes.iter().filter(|o| o.file == file) {
            let status = if o.passed() {
                TestCaseStatus::success()
            } else {
                let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
                st.set_message(o.failures[0].what.clone());
                st.set_description(o.failures.iter().map(failure_text).collect::<String>());
                st
            };
            let mut case = TestCase::new(o.name.clone(), status);
            case.set_time(std::time::Duration::from_secs_f64(o.seconds));
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    report.to_string().map_err(|e| {
        crate::Error::new(
            crate::error::ErrorKind::Internal,
            format!("writing JUnit XML: {e}"),
        )
    })
}
