//! Prints argv (one per line, with index) and the environment variables whose names start with
//! SPINDLE_, sorted, plus the count of all variables.
fn main() {
    for (i, a) in std::env::args().enumerate() {
        println!("arg[{i}]={a}");
    }
    let mut vars: Vec<_> = std::env::vars().filter(|(k, _)| k.starts_with("SPINDLE_")).collect();
    vars.sort();
    for (k, v) in &vars {
        println!("env {k}={v}");
    }
    println!("env count {}", std::env::vars().count());
    println!("HOME set: {}", std::env::var_os("HOME").is_some());
}
