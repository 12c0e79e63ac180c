//! Invalid and double frees abort with a clear message. Each case runs in a child process (this
//! test binary re-executed with SPINDLE_ABORT_CASE set), whose exit and stderr are checked.

use spindle_alloc as sa;
use std::process::Command;

fn child_case(case: &str) {
    // SAFETY: deliberately wrong frees; the allocator must abort before anything else happens.
    unsafe {
        match case {
            "double-small" => {
                let p = sa::alloc(40, 8);
                sa::free(p);
                sa::free(p);
            }
            "double-large" => {
                let p = sa::alloc(4 << 20, 8);
                sa::free(p);
                sa::free(p);
            }
            "foreign" => {
                let mut x = 5u64;
                sa::free(&mut x as *mut u64 as *mut u8);
            }
            "interior-large" => {
                let p = sa::alloc(4 << 20, 8);
                sa::free(p.add(100));
            }
            _ => unreachable!(),
        }
    }
}

#[test]
fn invalid_and_double_frees_abort_with_a_message() {
    if let Ok(case) = std::env::var("SPINDLE_ABORT_CASE") {
        child_case(&case);
        println!("no abort");
        return;
    }
    let exe = std::env::current_exe().unwrap();
    for (case, want) in [
        ("double-small", "double free"),
        ("double-large", "invalid or double free"),
        ("foreign", "did not hand out"),
        ("interior-large", "did not hand out"),
    ] {
        let out = Command::new(&exe)
            .args([
                "--exact",
                "invalid_and_double_frees_abort_with_a_message",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("SPINDLE_ABORT_CASE", case)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{case}: the child did not abort");
        assert!(stderr.contains("spindle-alloc: ") && stderr.contains(want), "{case}: stderr was {stderr}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("no abort"));
    }
}
