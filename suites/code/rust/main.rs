//! `csvsum` — sum numeric columns of a CSV file without external crates.
//!
//! ```text
//! csvsum data.csv --column amount --column qty
//! csvsum - --delimiter ';' < export.csv
//! ```

use std::collections::BTreeMap;
use std::env;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::process::ExitCode;

#[derive(Debug, Default)]
struct Options {
    path: String,
    columns: Vec<String>,
    delimiter: char,
}

fn parse_args() -> Result<Options, String> {
    let mut opts = Options { delimiter: ',', ..Default::default() };
    let mut args = env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-c" | "--column" => opts.columns.push(args.next().ok_or("--column needs a name")?),
            "-d" | "--delimiter" => {
                let d = args.next().ok_or("--delimiter needs a character")?;
                let mut chars = d.chars();
                opts.delimiter = match (chars.next(), chars.next()) {
                    (Some(c), None) => c,
                    _ => return Err(format!("delimiter must be one character, got {d:?}")),
                };
            }
            "-h" | "--help" => return Err("usage: csvsum FILE [--column NAME]... [--delimiter C]".into()),
            _ if opts.path.is_empty() => opts.path = arg,
            _ => return Err(format!("unexpected argument {arg:?}")),
        }
    }
    if opts.path.is_empty() {
        return Err("missing FILE (use - for stdin)".into());
    }
    Ok(opts)
}

fn run(opts: &Options) -> Result<BTreeMap<String, f64>, String> {
    let input: Box<dyn Read> = if opts.path == "-" {
        Box::new(io::stdin())
    } else {
        Box::new(File::open(&opts.path).map_err(|e| format!("{}: {e}", opts.path))?)
    };
    let mut lines = BufReader::new(input).lines();
    let header = match lines.next() {
        Some(line) => line.map_err(|e| e.to_string())?,
        None => return Ok(BTreeMap::new()),
    };
    let names: Vec<&str> = header.trim_start_matches('\u{feff}').split(opts.delimiter).collect();
    let wanted: Vec<(usize, &str)> = names
        .iter()
        .enumerate()
        .filter(|(_, n)| opts.columns.is_empty() || opts.columns.iter().any(|c| c == *n))
        .map(|(i, n)| (i, *n))
        .collect();

    let mut sums: BTreeMap<String, f64> = wanted.iter().map(|(_, n)| (n.to_string(), 0.0)).collect();
    for (lineno, line) in lines.enumerate() {
        let line = line.map_err(|e| e.to_string())?;
        let fields: Vec<&str> = line.split(opts.delimiter).collect();
        for &(i, name) in &wanted {
            let Some(raw) = fields.get(i).map(|s| s.trim()) else { continue };
            if raw.is_empty() {
                continue;
            }
            let value: f64 = raw
                .replace('_', "")
                .parse()
                .map_err(|_| format!("line {}: column {name:?}: not a number: {raw:?}", lineno + 2))?;
            *sums.get_mut(name).expect("column registered above") += value;
        }
    }
    Ok(sums)
}

fn main() -> ExitCode {
    let result = parse_args().and_then(|opts| run(&opts));
    match result {
        Ok(sums) => {
            for (name, total) in sums {
                println!("{name:>20}  {total:>16.4}");
            }
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("csvsum: {msg}");
            ExitCode::from(2)
        }
    }
}
