//! Comparisons watched for panics the checker catches, and named on
//! stderr before they run (`COMPAT_TRACE=1`), for the tests that compare
//! many generated pairs.

thread_local! {
    /// What each panic on this thread said, recorded by the hook
    /// [`watched`] installs.
    static PANICS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `compare` run on a pair named by `label` ([`trace`]d), and each panic
/// it caught added to `found`: the checker catches the validator's and
/// says "cannot decide", which keeps a user's run going but hides a
/// schema no obstacle foresaw; here each one fails the test, naming its
/// pair.
pub fn watched<T>(
    label: impl Fn() -> String,
    found: &mut Vec<String>,
    compare: impl FnOnce() -> T,
) -> T {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.with(|panics| panics.borrow_mut().push(info.to_string()));
            previous(info);
        }));
    });
    trace(&label);
    let before = PANICS.with(|panics| panics.borrow().len());
    let compared = compare();
    PANICS.with(|panics| {
        for said in panics.borrow().iter().skip(before) {
            found.push(format!("{}: a panic caught comparing it: {said}", label()));
        }
    });
    compared
}

/// With `COMPAT_TRACE=1`, each pair is named before it is compared, so that
/// a run the process does not survive (a stack overflow) names its pair.
fn trace(label: impl FnOnce() -> String) {
    if std::env::var("COMPAT_TRACE").is_ok_and(|on| on == "1") {
        eprintln!("comparing {}", label());
    }
}
