//! Error type for the config loader. Every variant says which file and, where
//! possible, which line is at fault, so the CLI can print one helpful line.

use std::fmt;
use std::io;
use std::path::PathBuf;

#[derive(Debug)]
pub enum ConfigError {
    Io { path: PathBuf, source: io::Error },
    Syntax { path: PathBuf, line: usize, message: String },
    MissingKey { path: PathBuf, key: &'static str },
    InvalidValue { key: String, value: String, expected: &'static str },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Self::Syntax { path, line, message } => {
                write!(f, "{}:{line}: syntax error: {message}", path.display())
            }
            Self::MissingKey { path, key } => {
                write!(f, "{}: required key `{key}` is missing", path.display())
            }
            Self::InvalidValue { key, value, expected } => {
                write!(f, "`{key}` = {value:?} is invalid; expected {expected}")
            }
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

pub type Result<T> = std::result::Result<T, ConfigError>;

/// Parses a port number such as `"8080"`; rejects 0 and anything above 65 535.
pub fn parse_port(key: &str, value: &str) -> Result<u16> {
    match value.trim().parse::<u16>() {
        Ok(p) if p != 0 => Ok(p),
        _ => Err(ConfigError::InvalidValue {
            key: key.to_owned(),
            value: value.to_owned(),
            expected: "an integer from 1 to 65535",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_file_and_line() {
        let e = ConfigError::Syntax { path: "設定/app.conf".into(), line: 12, message: "expected `=`".into() };
        assert_eq!(e.to_string(), "設定/app.conf:12: syntax error: expected `=`");
    }

    #[test]
    fn port_bounds() {
        assert_eq!(parse_port("port", " 443 ").unwrap(), 443);
        assert!(parse_port("port", "0").is_err());
        assert!(parse_port("port", "70000").is_err());
    }
}
