//! Unit strings of scenario documents: durations ("5ms"), rates ("10Mbps"), sizes ("1GB")
//! and packet counts ("333p"), read and written.
//!
//! A quantity is a non-negative decimal number immediately followed by a unit, with no space
//! between them and no exponent: `"1.5Gbps"`, `"0.1s"`, `"64KiB"`. The number is converted
//! with exact integer arithmetic (`"0.1s"` is exactly 100 000 000 ns); only a value that is
//! not a whole number of the base unit (nanosecond, bit/s, byte) is rounded, to the nearest.
//!
//! Every error is a full sentence that quotes the input, says what was expected and gives
//! an example, so the parser can report it as is.

use super::{Bytes, Dur, Rate};

/// One family of units: what it measures and each unit's size in the base unit.
struct Family {
    /// "duration", "rate", "size", "packet count".
    what: &'static str,
    /// An example of a valid value.
    example: &'static str,
    /// (unit, base units per unit); the first unit of each size is the one listed in help.
    units: &'static [(&'static str, u128)],
    /// The units shown in messages.
    listed: &'static str,
    /// The unit suggested when a number has none.
    usual: &'static str,
}

const DURATION: Family = Family {
    what: "duration",
    example: "10ms",
    units: &[
        ("ns", 1),
        ("us", 1_000),
        ("µs", 1_000),
        ("ms", 1_000_000),
        ("s", 1_000_000_000),
        ("min", 60_000_000_000),
        ("h", 3_600_000_000_000),
    ],
    listed: "ns, us, ms, s, min, h",
    usual: "s",
};

const RATE: Family = Family {
    what: "rate",
    example: "10Mbps",
    units: &[
        ("bps", 1),
        ("kbps", 1_000),
        ("Kbps", 1_000),
        ("Mbps", 1_000_000),
        ("Gbps", 1_000_000_000),
        ("Tbps", 1_000_000_000_000),
    ],
    listed: "bps, kbps, Mbps, Gbps, Tbps",
    usual: "Mbps",
};

const SIZE: Family = Family {
    what: "size",
    example: "1500B",
    units: &[
        ("B", 1),
        ("KB", 1_000),
        ("kB", 1_000),
        ("MB", 1_000_000),
        ("GB", 1_000_000_000),
        ("TB", 1_000_000_000_000),
        ("KiB", 1 << 10),
        ("MiB", 1 << 20),
        ("GiB", 1 << 30),
        ("TiB", 1 << 40),
    ],
    listed: "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB",
    usual: "B",
};

const PACKETS: Family = Family {
    what: "packet count",
    example: "333p",
    units: &[("p", 1)],
    listed: "p",
    usual: "p",
};

const FAMILIES: [&Family; 4] = [&DURATION, &RATE, &SIZE, &PACKETS];

/// A decimal number split off the front of a quantity: value = `mant / 10^scale`.
struct Decimal {
    mant: u128,
    scale: u32,
}

/// Most significant digits accepted (keeps every product within u128 or detected by checks).
const MAX_DIGITS: usize = 30;

/// The numeric prefix of `s` and the rest; `None` if `s` does not start with a digit or the
/// number is malformed (e.g. "1." or "1.2.3").
fn split_number(s: &str) -> Option<(Decimal, &str, &str)> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    if i == 0 {
        return None;
    }
    let int_end = i;
    let mut frac = "";
    if i < bytes.len() && bytes[i] == b'.' {
        let start = i + 1;
        let mut j = start;
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        if j == start {
            return None;
        }
        frac = &s[start..j];
        i = j;
    }
    let int = s[..int_end].trim_start_matches('0');
    let frac_trim = frac.trim_end_matches('0');
    if int.len() + frac_trim.len() > MAX_DIGITS {
        // Reported as "too large" (or too precise) by the caller through the overflow path.
        return Some((
            Decimal {
                mant: u128::MAX,
                scale: 0,
            },
            &s[..i],
            &s[i..],
        ));
    }
    let mut mant: u128 = 0;
    for c in int.bytes().chain(frac_trim.bytes()) {
        mant = mant * 10 + u128::from(c - b'0');
    }
    Some((
        Decimal {
            mant,
            scale: frac_trim.len() as u32,
        },
        &s[..i],
        &s[i..],
    ))
}

/// `mant / 10^scale × per_unit`, rounded to the nearest integer; `None` on overflow of u64.
fn scaled(d: &Decimal, per_unit: u128) -> Option<u64> {
    let num = d.mant.checked_mul(per_unit)?;
    let den = 10u128.checked_pow(d.scale)?;
    let q = num / den;
    let r = num % den;
    let rounded = if r * 2 >= den && r != 0 { q + 1 } else { q };
    u64::try_from(rounded).ok()
}

/// The family and multiplier of `unit`, searched in every family.
fn find_unit(unit: &str) -> Option<(&'static Family, u128)> {
    FAMILIES.iter().find_map(|f| {
        f.units
            .iter()
            .find(|(u, _)| *u == unit)
            .map(|(_, m)| (*f, *m))
    })
}

/// The unit of `fam` equal to `unit` ignoring case, for "did you mean" hints.
fn case_insensitive_match(fam: &Family, unit: &str) -> Option<&'static str> {
    fam.units
        .iter()
        .find(|(u, _)| u.eq_ignore_ascii_case(unit))
        .map(|(u, _)| *u)
}

fn article(what: &str) -> &'static str {
    if what.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// Parse `input` as a quantity of family `fam`, in base units.
fn parse_in(input: &str, fam: &Family) -> Result<u64, String> {
    parse_quoting(input, fam).map_err(|e| {
        // a message quotes the value; a long one is cut, so a message stays a line
        if input.chars().count() > 60 {
            let cut: String = input.chars().take(57).collect();
            e.replace(input, &format!("{cut}..."))
        } else {
            e
        }
    })
}

fn parse_quoting(input: &str, fam: &Family) -> Result<u64, String> {
    let what = fam.what;
    let help = format!("e.g. \"{}\" (units: {})", fam.example, fam.listed);
    let help_tail = format!("\"{}\" (units: {})", fam.example, fam.listed);
    let s = input.trim();
    if s.is_empty() {
        return Err(format!(
            "an empty string is not {} {what}: expected a number followed by a unit, {help}",
            article(what)
        ));
    }
    if let Some(rest) = s.strip_prefix('-') {
        if rest.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(format!(
                "\"{input}\" is not {} {what}: it must not be negative, {help}",
                article(what)
            ));
        }
    }
    let Some((num, num_text, rest)) = split_number(s) else {
        let hint = if s.starts_with('.') {
            format!("; write a digit before the point, e.g. \"0{s}\"")
        } else {
            String::new()
        };
        return Err(format!(
            "\"{input}\" is not {} {what}: expected a number followed by a unit{hint}, {help}",
            article(what)
        ));
    };
    if rest.starts_with(char::is_whitespace) {
        let unit = rest.trim_start();
        return Err(format!(
            "\"{input}\" is not {} {what}: no space between number and unit, e.g. \"{num_text}{unit}\" (units: {})",
            article(what),
            fam.listed
        ));
    }
    if rest.is_empty() {
        return Err(format!(
            "\"{input}\" is not {} {what}: the unit is missing, e.g. \"{num_text}{}\" (units: {})",
            article(what),
            fam.usual,
            fam.listed
        ));
    }
    let per_unit = match find_unit(rest) {
        Some((f, m)) if std::ptr::eq(f, fam) => m,
        Some((other, _)) => {
            return Err(format!(
                "\"{input}\" is {} {}, not {} {what}; expected {} {what} such as {help_tail}",
                article(other.what),
                other.what,
                article(what),
                article(what)
            ))
        }
        None => {
            let hint = match case_insensitive_match(fam, rest) {
                Some(u) => format!(" (did you mean \"{num_text}{u}\"?)"),
                None => String::new(),
            };
            return Err(format!(
                "\"{input}\" is not {} {what}: unknown unit \"{rest}\"{hint}; {help}",
                article(what)
            ));
        }
    };
    let Some(v) = scaled(&num, per_unit) else {
        return Err(format!(
            "\"{input}\" is too large for {} {what} (at most {} in the base unit)",
            article(what),
            u64::MAX
        ));
    };
    if v == 0 && num.mant != 0 {
        let base = fam.units[0].0;
        return Err(format!(
            "\"{input}\" is smaller than the resolution of 1{base}; the smallest value above \
             zero is \"1{base}\""
        ));
    }
    Ok(v)
}

/// A duration: a number and one of `ns, us, ms, s, min, h`, e.g. `"1.5s"`, `"100ms"`.
pub fn parse_duration(s: &str) -> Result<Dur, String> {
    parse_in(s, &DURATION).map(Dur)
}

/// A rate, greater than zero: a number and one of `bps, kbps (Kbps), Mbps, Gbps, Tbps`
/// (decimal multipliers), e.g. `"10Mbps"`, `"1.5Gbps"`.
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let r = parse_in(s, &RATE)?;
    if r == 0 {
        return Err(format!(
            "\"{s}\" is not a usable rate: it must be greater than zero, e.g. \"10Mbps\""
        ));
    }
    Ok(Rate(r))
}

/// A size: a number and one of `B, KB (kB), MB, GB, TB` (powers of 1000) or
/// `KiB, MiB, GiB, TiB` (powers of 1024), e.g. `"1500B"`, `"64KiB"`.
pub fn parse_size(s: &str) -> Result<Bytes, String> {
    parse_in(s, &SIZE).map(Bytes)
}

/// A whole number of packets written with the unit `p`, e.g. `"333p"`.
pub fn parse_packets(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if let Some((num, _, rest)) = split_number(t) {
        if rest == "p" && num.scale != 0 {
            return Err(format!(
                "\"{s}\" is not a packet count: it must be a whole number of packets, e.g. \"333p\""
            ));
        }
    }
    parse_in(s, &PACKETS)
}

/// A number of packets or of bytes (a queue limit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketsOrBytes {
    /// Packets.
    Packets(u64),
    /// Bytes.
    Bytes(u64),
}

/// A queue limit: packets (`"333p"`) or a size in bytes (`"500KB"`). A bare integer in a
/// document means packets; that case is handled by the document parser.
pub fn parse_queue_limit(s: &str) -> Result<PacketsOrBytes, String> {
    let t = s.trim();
    let unit = split_number(t).map(|(_, _, rest)| rest);
    match unit {
        Some("p") => parse_packets(s).map(PacketsOrBytes::Packets),
        Some(u) if SIZE.units.iter().any(|(x, _)| *x == u) => {
            parse_size(s).map(|b| PacketsOrBytes::Bytes(b.0))
        }
        _ => {
            let mut msg = format!(
                "\"{s}\" is not a queue limit: expected packets such as \"333p\" or a size such as \"500KB\""
            );
            if let Some(rest) = unit {
                if rest.starts_with(char::is_whitespace) {
                    msg.push_str("; no space between number and unit");
                } else if !rest.is_empty() {
                    msg.push_str(&format!("; unknown unit \"{rest}\""));
                } else {
                    msg.push_str("; the unit is missing");
                }
            } else if t.starts_with('-') {
                msg.push_str("; it must not be negative");
            }
            Err(msg)
        }
    }
}

/// `n` base units written with the largest unit of `fam` that keeps it a whole number.
fn format_in(n: u64, fam: &Family) -> String {
    let unit = fam
        .units
        .iter()
        .filter(|(u, m)| n as u128 % m == 0 && fam.listed.contains(*u))
        .max_by_key(|(_, m)| *m)
        .unwrap_or(&fam.units[0]);
    format!("{}{}", n as u128 / unit.1, unit.0)
}

/// A duration as a document would write it, in ns, us, ms or s: `"100ms"`, `"60s"`.
pub fn format_duration(d: Dur) -> String {
    if d.0 == 0 {
        return "0s".into();
    }
    let fam = Family {
        units: &DURATION.units[..5],
        ..DURATION
    };
    format_in(d.0, &fam)
}

/// A rate as a document would write it: `"10Mbps"`.
pub fn format_rate(r: Rate) -> String {
    format_in(r.0, &RATE)
}

/// A size in bytes as a document would write it, in decimal units: `"1500B"`, `"1MB"`.
pub fn format_size(b: Bytes) -> String {
    if b.0 == 0 {
        return "0B".into();
    }
    let fam = Family {
        units: &SIZE.units[..6],
        ..SIZE
    };
    format_in(b.0, &fam)
}

/// A size as briefly as it can be written exactly, in decimal or binary units:
/// `"1MiB"`, `"1MB"`, `"1460B"`.
pub fn format_size_short(b: Bytes) -> String {
    let decimal = format_size(b);
    let binary = match (1..=4)
        .rev()
        .map(|k| (k, 1u64 << (10 * k)))
        .find(|(_, m)| b.0 > 0 && b.0 % m == 0)
    {
        Some((k, m)) => format!("{}{}", b.0 / m, ["", "KiB", "MiB", "GiB", "TiB"][k]),
        None => decimal.clone(),
    };
    if binary.len() < decimal.len() {
        binary
    } else {
        decimal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value below the resolution suggests one that is accepted (it once suggested
    /// "0bps", which a rate refuses).
    #[test]
    fn below_the_resolution_suggests_an_accepted_value() {
        let e = parse_rate("0.4bps").unwrap_err();
        assert!(e.contains("\"1bps\""), "{e}");
        assert_eq!(parse_rate("1bps"), Ok(Rate(1)));
        let long = format!("{}s", "9".repeat(500));
        assert!(parse_duration(&long).unwrap_err().len() < 200);
        let e = parse_duration("0.1ns").unwrap_err();
        assert!(e.contains("\"1ns\""), "{e}");
        assert!(!e.contains("0ns"), "{e}");
    }

    #[test]
    fn durations_are_exact() {
        assert_eq!(parse_duration("0.1s"), Ok(Dur(100_000_000)));
        assert_eq!(parse_duration("1.5s"), Ok(Dur(1_500_000_000)));
        assert_eq!(parse_duration("5ms"), Ok(Dur::from_millis(5)));
        assert_eq!(parse_duration("250us"), Ok(Dur::from_micros(250)));
        assert_eq!(parse_duration("7ns"), Ok(Dur(7)));
        assert_eq!(parse_duration("2min"), Ok(Dur::from_secs(120)));
        assert_eq!(parse_duration("1.5h"), Ok(Dur::from_secs(5400)));
        assert_eq!(parse_duration("0s"), Ok(Dur::ZERO));
        assert_eq!(parse_duration("0.000000001s"), Ok(Dur(1)));
        assert_eq!(parse_duration("2000s"), Ok(Dur::from_secs(2000)));
        assert_eq!(parse_duration("0.30000000s"), Ok(Dur(300_000_000)));
        assert_eq!(parse_duration("007ms"), Ok(Dur::from_millis(7)));
        // Rounded to the nearest nanosecond only when not representable.
        assert_eq!(parse_duration("1.5ns"), Ok(Dur(2)));
        assert_eq!(parse_duration("0.3333333333s"), Ok(Dur(333_333_333)));
    }

    #[test]
    fn duration_errors_explain() {
        let e = parse_duration("5 ms").unwrap_err();
        assert!(e.contains("no space") && e.contains("\"5ms\""), "{e}");
        let e = parse_duration("-5ms").unwrap_err();
        assert!(e.contains("negative"), "{e}");
        let e = parse_duration("5").unwrap_err();
        assert!(e.contains("unit is missing") && e.contains("\"5s\""), "{e}");
        let e = parse_duration("10Mbps").unwrap_err();
        assert!(e.contains("is a rate, not a duration"), "{e}");
        let e = parse_duration("5sec").unwrap_err();
        assert!(e.contains("unknown unit \"sec\""), "{e}");
        let e = parse_duration("").unwrap_err();
        assert!(e.contains("empty"), "{e}");
        let e = parse_duration(".5s").unwrap_err();
        assert!(e.contains("\"0.5s\""), "{e}");
        let e = parse_duration("1.s").unwrap_err();
        assert!(e.contains("expected a number"), "{e}");
        let e = parse_duration("1e3ms").unwrap_err();
        assert!(e.contains("unknown unit"), "{e}");
        let long = format!("{}s", "9".repeat(500));
        assert!(parse_duration(&long).unwrap_err().len() < 200);
        let e = parse_duration("0.1ns").unwrap_err();
        assert!(e.contains("resolution"), "{e}");
        let e = parse_duration("99999999999999999999h").unwrap_err();
        assert!(e.contains("too large"), "{e}");
        let e = parse_duration("1234567890123456789012345678901234567890s").unwrap_err();
        assert!(e.contains("too large"), "{e}");
        let e = parse_duration("MS").unwrap_err();
        assert!(e.contains("expected a number"), "{e}");
    }

    #[test]
    fn rates_are_exact() {
        assert_eq!(parse_rate("1.5Gbps"), Ok(Rate(1_500_000_000)));
        assert_eq!(parse_rate("10Mbps"), Ok(Rate::mbps(10)));
        assert_eq!(parse_rate("64kbps"), Ok(Rate(64_000)));
        assert_eq!(parse_rate("64Kbps"), Ok(Rate(64_000)));
        assert_eq!(parse_rate("9600bps"), Ok(Rate(9600)));
        assert_eq!(parse_rate("0.1Mbps"), Ok(Rate(100_000)));
        assert_eq!(parse_rate("1Tbps"), Ok(Rate(1_000_000_000_000)));
    }

    #[test]
    fn rate_errors_explain() {
        let e = parse_rate("10 Mbps").unwrap_err();
        assert_eq!(
            e,
            "\"10 Mbps\" is not a rate: no space between number and unit, e.g. \"10Mbps\" \
             (units: bps, kbps, Mbps, Gbps, Tbps)"
        );
        let e = parse_rate("5ms").unwrap_err();
        assert!(e.contains("is a duration, not a rate"), "{e}");
        let e = parse_rate("0Mbps").unwrap_err();
        assert!(e.contains("greater than zero"), "{e}");
        let e = parse_rate("-1Mbps").unwrap_err();
        assert!(e.contains("negative"), "{e}");
        let e = parse_rate("10mbps").unwrap_err();
        assert!(e.contains("did you mean \"10Mbps\""), "{e}");
        let e = parse_rate("10MB").unwrap_err();
        assert!(e.contains("is a size, not a rate"), "{e}");
    }

    #[test]
    fn sizes_decimal_and_binary() {
        assert_eq!(parse_size("1500B"), Ok(Bytes(1500)));
        assert_eq!(parse_size("1KB"), Ok(Bytes(1000)));
        assert_eq!(parse_size("1kB"), Ok(Bytes(1000)));
        assert_eq!(parse_size("1.5MB"), Ok(Bytes(1_500_000)));
        assert_eq!(parse_size("1GB"), Ok(Bytes(1_000_000_000)));
        assert_eq!(parse_size("2TB"), Ok(Bytes(2_000_000_000_000)));
        assert_eq!(parse_size("64KiB"), Ok(Bytes(65_536)));
        assert_eq!(parse_size("1.5KiB"), Ok(Bytes(1536)));
        assert_eq!(parse_size("1MiB"), Ok(Bytes(1 << 20)));
        assert_eq!(parse_size("1GiB"), Ok(Bytes(1 << 30)));
        assert_eq!(parse_size("0B"), Ok(Bytes(0)));
    }

    #[test]
    fn size_errors_explain() {
        let e = parse_size("1 GB").unwrap_err();
        assert!(e.contains("\"1GB\""), "{e}");
        let e = parse_size("1gb").unwrap_err();
        assert!(e.contains("did you mean \"1GB\""), "{e}");
        let e = parse_size("10Mbps").unwrap_err();
        assert!(e.contains("is a rate, not a size"), "{e}");
        let e = parse_size("12").unwrap_err();
        assert!(e.contains("\"12B\""), "{e}");
    }

    #[test]
    fn packets_and_queue_limits() {
        assert_eq!(parse_packets("333p"), Ok(333));
        assert!(parse_packets("1.5p").unwrap_err().contains("whole number"));
        assert!(parse_packets("333").unwrap_err().contains("\"333p\""));
        assert!(parse_packets("3 p").unwrap_err().contains("no space"));
        assert_eq!(parse_queue_limit("333p"), Ok(PacketsOrBytes::Packets(333)));
        assert_eq!(
            parse_queue_limit("500KB"),
            Ok(PacketsOrBytes::Bytes(500_000))
        );
        assert_eq!(
            parse_queue_limit("64KiB"),
            Ok(PacketsOrBytes::Bytes(65_536))
        );
        let e = parse_queue_limit("10ms").unwrap_err();
        assert!(e.contains("\"333p\"") && e.contains("\"500KB\""), "{e}");
        let e = parse_queue_limit("333 p").unwrap_err();
        assert!(e.contains("no space"), "{e}");
        let e = parse_queue_limit("-3p").unwrap_err();
        assert!(e.contains("negative"), "{e}");
        let e = parse_queue_limit("333").unwrap_err();
        assert!(e.contains("missing"), "{e}");
    }

    #[test]
    fn formatting_reads_back() {
        assert_eq!(format_duration(Dur::from_millis(100)), "100ms");
        assert_eq!(format_duration(Dur::from_secs(120)), "120s");
        assert_eq!(format_duration(Dur(1500)), "1500ns");
        assert_eq!(format_duration(Dur::ZERO), "0s");
        assert_eq!(format_rate(Rate(1_500_000_000)), "1500Mbps");
        assert_eq!(format_size(Bytes(65_536)), "65536B");
        assert_eq!(format_size(Bytes(1_000_000)), "1MB");
        assert_eq!(format_size_short(Bytes(1 << 20)), "1MiB");
        assert_eq!(format_size_short(Bytes(1_000_000)), "1MB");
        assert_eq!(format_size_short(Bytes(1460)), "1460B");
        assert_eq!(
            parse_size(&format_size_short(Bytes(65_536))),
            Ok(Bytes(65_536))
        );
        for d in [1, 999, 1_000_000, 3_600_000_000_000, 7_200_000_000_001] {
            assert_eq!(parse_duration(&format_duration(Dur(d))), Ok(Dur(d)));
        }
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        for s in [
            "",
            " ",
            "-",
            "--1s",
            ".",
            "1..2s",
            "1.2.3s",
            "µs",
            "1µs",
            "ñ",
            "1ñ",
            "p",
            "0p",
            "99999999999999999999999999999999999999999999999p",
            "1\u{0}s",
            "+1s",
            "1_000ms",
        ] {
            let _ = parse_duration(s);
            let _ = parse_rate(s);
            let _ = parse_size(s);
            let _ = parse_packets(s);
            let _ = parse_queue_limit(s);
        }
        assert_eq!(parse_duration("1µs"), Ok(Dur(1000)));
    }
}
