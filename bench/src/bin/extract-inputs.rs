//! Writes one workload's inputs from `shared/bench/inputs.json` as a JSON file, for the
//! command-line comparisons: `extract-inputs NAME OUT.json`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(name), Some(out)) = (args.first(), args.get(1)) else {
        eprintln!("usage: extract-inputs NAME OUT.json");
        std::process::exit(2);
    };
    let w = prompty_bench::workloads(&[name.as_str()]).remove(0);
    let json = serde_json::to_string_pretty(&serde_json::Value::Object(w.inputs)).expect("serializes");
    std::fs::write(out, json).expect("writes");
    println!("{}", w.path.display());
}
