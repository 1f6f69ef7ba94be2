//! The per-packet log: one CSV row per packet offered to the model, in the order the model
//! saw them, with the run's parameters in comment lines at the top so a log replays alone.

use crate::model::{LinkParams, Verdict};
use std::fmt::Write as _;

/// Direction 0 carries data (sender → receiver, lossy), direction 1 carries ACKs back.
pub const DATA: usize = 0;
pub const ACK: usize = 1;

/// The run's parameters, as written in the log header.
#[derive(Clone, Debug, PartialEq)]
pub struct RunParams {
    pub links: [LinkParams; 2],
    pub seed: u64,
    /// CLOCK_MONOTONIC at the emulator's time 0, to align with the endpoints' clocks.
    pub t0_mono_ns: u64,
}

/// One packet. Times are ns since the emulator's time 0.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub dir: usize,
    /// When the emulator read the frame.
    pub arrival: u64,
    /// Access-link delay of the packet's flow: before the queue on the data direction,
    /// after the propagation on the ACK direction.
    pub extra: u64,
    /// Bytes serialised: the IPv4 total length (no Ethernet header), as ccsim counts a packet.
    pub size: u32,
    pub sport: u16,
    pub dport: u16,
    pub verdict: Verdict,
    /// When the frame was actually written out (None: dropped, or the run ended first).
    pub sent: Option<u64>,
}

impl Record {
    /// When the packet enters the queue.
    pub fn t_in(&self) -> u64 {
        if self.dir == DATA {
            self.arrival + self.extra
        } else {
            self.arrival
        }
    }
    /// Extra delay after the propagation.
    pub fn after(&self) -> u64 {
        if self.dir == DATA {
            0
        } else {
            self.extra
        }
    }
}

pub const COLUMNS: &str =
    "dir,arrival_ns,extra_ns,size,sport,dport,verdict,tx_end_ns,deliver_ns,sent_ns";

pub fn write(params: &RunParams, records: &[Record]) -> String {
    let mut s = String::with_capacity(64 * records.len() + 256);
    let (d, a) = (&params.links[DATA], &params.links[ACK]);
    let _ = writeln!(s, "# ccsim-kernel-emu log v1");
    let _ = writeln!(
        s,
        "# rate_bps={} prop_ns={} limit={} ack_rate_bps={} ack_prop_ns={} ack_limit={} loss={:?} seed={} t0_mono_ns={}",
        d.rate_bps, d.prop_ns, d.limit, a.rate_bps, a.prop_ns, a.limit, d.loss, params.seed, params.t0_mono_ns
    );
    let _ = writeln!(s, "{COLUMNS}");
    for r in records {
        let (v, te, de) = match r.verdict {
            Verdict::Sent { tx_end, deliver } => ("sent", tx_end.to_string(), deliver.to_string()),
            Verdict::Lost => ("lost", String::new(), String::new()),
            Verdict::Overflow => ("overflow", String::new(), String::new()),
        };
        let sent = r.sent.map(|t| t.to_string()).unwrap_or_default();
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{}",
            r.dir, r.arrival, r.extra, r.size, r.sport, r.dport, v, te, de, sent
        );
    }
    s
}

fn field<T: std::str::FromStr>(
    kv: &std::collections::HashMap<&str, &str>,
    k: &str,
) -> Result<T, String> {
    kv.get(k)
        .ok_or_else(|| format!("log header: missing {k}"))?
        .parse()
        .map_err(|_| format!("log header: bad value of {k}"))
}

pub fn parse(text: &str) -> Result<(RunParams, Vec<Record>), String> {
    let mut lines = text.lines().enumerate();
    let mut kv = std::collections::HashMap::new();
    let mut records = Vec::new();
    let mut seen_columns = false;
    for (i, line) in lines.by_ref() {
        if let Some(rest) = line.strip_prefix('#') {
            for tok in rest.split_whitespace() {
                if let Some((k, v)) = tok.split_once('=') {
                    kv.insert(k, v);
                }
            }
            continue;
        }
        if !seen_columns {
            if line != COLUMNS {
                return Err(format!(
                    "log line {}: expected the column header {COLUMNS}",
                    i + 1
                ));
            }
            seen_columns = true;
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        let bad = |what: &str| format!("log line {}: bad {what}", i + 1);
        if f.len() != 10 {
            return Err(bad("number of fields (want 10)"));
        }
        let num = |j: usize, what: &str| f[j].parse::<u64>().map_err(|_| bad(what));
        let verdict = match f[6] {
            "sent" => Verdict::Sent {
                tx_end: num(7, "tx_end_ns")?,
                deliver: num(8, "deliver_ns")?,
            },
            "lost" => Verdict::Lost,
            "overflow" => Verdict::Overflow,
            _ => return Err(bad("verdict (sent, lost, overflow)")),
        };
        let dir = num(0, "dir")? as usize;
        if dir > 1 {
            return Err(bad("dir (0 or 1)"));
        }
        records.push(Record {
            dir,
            arrival: num(1, "arrival_ns")?,
            extra: num(2, "extra_ns")?,
            size: num(3, "size")? as u32,
            sport: num(4, "sport")? as u16,
            dport: num(5, "dport")? as u16,
            verdict,
            sent: if f[9].is_empty() {
                None
            } else {
                Some(num(9, "sent_ns")?)
            },
        });
    }
    let link = |r: &str, p: &str, l: &str, loss: f64| -> Result<LinkParams, String> {
        Ok(LinkParams {
            rate_bps: field(&kv, r)?,
            prop_ns: field(&kv, p)?,
            limit: field(&kv, l)?,
            loss,
        })
    };
    let params = RunParams {
        links: [
            link("rate_bps", "prop_ns", "limit", field(&kv, "loss")?)?,
            link("ack_rate_bps", "ack_prop_ns", "ack_limit", 0.0)?,
        ],
        seed: field(&kv, "seed")?,
        t0_mono_ns: field(&kv, "t0_mono_ns")?,
    };
    if !seen_columns {
        return Err("log: no column header".into());
    }
    Ok((params, records))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_round_trips_exactly() {
        let link = LinkParams {
            rate_bps: 10_000_000,
            prop_ns: 20_000_000,
            limit: 33,
            loss: 0.001,
        };
        let params = RunParams {
            links: [link, LinkParams { loss: 0.0, ..link }],
            seed: 9,
            t0_mono_ns: 123,
        };
        let recs = vec![
            Record {
                dir: 0,
                arrival: 5,
                extra: 0,
                size: 1500,
                sport: 5001,
                dport: 5201,
                verdict: Verdict::Sent {
                    tx_end: 1_200_005,
                    deliver: 21_200_005,
                },
                sent: Some(21_200_100),
            },
            Record {
                dir: 0,
                arrival: 6,
                extra: 7,
                size: 1500,
                sport: 5002,
                dport: 5201,
                verdict: Verdict::Lost,
                sent: None,
            },
            Record {
                dir: 1,
                arrival: 8,
                extra: 0,
                size: 52,
                sport: 5201,
                dport: 5001,
                verdict: Verdict::Overflow,
                sent: None,
            },
        ];
        let (p2, r2) = parse(&write(&params, &recs)).unwrap();
        assert_eq!(p2, params);
        assert_eq!(r2, recs);
    }

    #[test]
    fn a_damaged_log_is_refused_with_its_line() {
        let text = format!("# rate_bps=1 prop_ns=0 limit=1 ack_rate_bps=1 ack_prop_ns=0 ack_limit=1 loss=0.0 seed=1 t0_mono_ns=0\n{COLUMNS}\n0,1,0,1500,1,2,maybe,,,\n");
        let e = parse(&text).unwrap_err();
        assert!(e.contains("line 3") && e.contains("verdict"), "{e}");
        assert!(parse("# seed=1\n").unwrap_err().contains("missing"));
    }
}
