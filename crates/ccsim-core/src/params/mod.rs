//! Parameters as data.
//!
//! Every component declares its parameters once, in a plain table next to its code
//! (`const PARAMS: &[Param]` in `cc/cubic.rs`, `net/red.rs`, `transport/tcp/config.rs`, …):
//! name, type with its range or allowed values, default, unit, a one-line doc and where the
//! default comes from. Everything else is derived from those tables:
//!
//! - reading a scenario document ([`read`]): types, ranges, unknown keys, kind-tagged tables
//!   (`cc = { kind = "cubic", beta = 0.8 }` or just `"cubic"`), defaults, and a located
//!   message for every problem at once;
//! - the resolved values, each with its [`Origin`] (the document, a named profile, or the
//!   built-in default), which the components turn into their typed configuration with serde
//!   ([`Resolved::config`]);
//! - the reference tables of docs/parameters.md ([`reference`]) and the JSON Schema editors
//!   use ([`schema`]).
//!
//! A value comes from, first to last: the document; a [`Layer`] of default overrides with a
//! name (a profile: a Vegas `preset`, a transport's own defaults, and later the TCP stack
//! profiles); the declared default. Checks that span several tables or the whole document
//! (node names, routes, min < max) are not here: see `scenario::assemble`.

pub mod read;
pub mod reference;
mod resolved;
pub mod schema;
pub mod text;
mod value;

pub use read::{Cx, Problem};
pub use resolved::{display, typed, Entry, Resolved};

use serde_json::Value;

/// One parameter of a component.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// The key in the document.
    pub name: &'static str,
    /// Its type, with the range or allowed values.
    pub ty: Ty,
    /// What an absent key means.
    pub default: Dflt,
    /// A word standing for "none" (`"auto"`, `"inf"`, `false`), if any.
    pub alt: Alt,
    /// The unit of a plain number ("packets", "segments/s³"); empty for unit-bearing types
    /// (durations, rates, sizes carry their own) and pure numbers.
    pub unit: &'static str,
    /// One line: what it does.
    pub doc: &'static str,
    /// Where the default comes from: an RFC, a paper, a simulator's file and line, or
    /// "our choice: …" with the reason.
    pub source: &'static str,
}

/// A bound of a numeric range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// The value itself is allowed.
    Incl(f64),
    /// Only values beyond it are allowed.
    Excl(f64),
    /// No bound.
    None,
}

/// The type of a parameter, with its range or allowed values.
#[derive(Clone, Copy, Debug)]
pub enum Ty {
    /// `true` or `false`.
    Bool,
    /// A whole number in `min..=max`.
    Int {
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// A number (integer or float) within the bounds. With `unit = "packets"` a string such
    /// as `"25p"` is accepted too.
    Float {
        /// Lower bound.
        min: Bound,
        /// Upper bound.
        max: Bound,
    },
    /// A duration string such as `"10ms"`; with `positive`, greater than zero.
    Duration {
        /// Zero is refused.
        positive: bool,
    },
    /// A rate string such as `"10Mbps"`, greater than zero.
    Rate,
    /// A size: a string such as `"1500B"` or an integer number of bytes, in `min..=max`.
    Size {
        /// Smallest allowed, bytes.
        min: u64,
        /// Largest allowed, bytes.
        max: u64,
    },
    /// A packet count: `"50p"` or an integer, in `min..=max`.
    Packets {
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// A queue limit: packets (`"333p"` or an integer) or a size (`"500KB"`), above zero.
    QueueLimit,
    /// A count of the parameter's unit (an integer in `min..=max`) or a size (`"4380B"`),
    /// above zero.
    CountOrSize {
        /// Smallest count.
        min: u64,
        /// Largest count.
        max: u64,
    },
    /// A start time: a duration, or `[lo, hi]` for a time drawn uniformly in that range.
    Start,
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// Any string (a name; what it names is checked when the scenario is assembled).
    Text,
    /// `"all"`, `"none"` or a list of names of what the string says ("flow", "link").
    Selection(&'static str),
    /// A list.
    List {
        /// Type of each element.
        of: &'static Ty,
        /// Exact length, if fixed.
        len: Option<usize>,
        /// What the list holds, for messages ("a list of two node names").
        what: &'static str,
    },
    /// A table of name = value (the names are checked when the scenario is assembled).
    Map(&'static Ty),
    /// A nested table of parameters.
    Table(&'static [Param]),
    /// A table with a `kind`, or the kind's name alone.
    Kinded(&'static Kinds),
    /// A table whose `tag` key (declared among `common`, a string) names one of `kinds`,
    /// whose keys then sit beside the common ones: a `[[flow]]` entry and its `transport`.
    Flat {
        /// The keys every entry has (the tag among them).
        common: &'static [Param],
        /// The key naming the kind.
        tag: &'static str,
        /// The kinds.
        kinds: &'static Kinds,
    },
}

/// A value written as a document would write it: the default of a parameter or a value of
/// a profile, read through the same checks as the document's own values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lit {
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(u64),
    /// A number.
    Float(f64),
    /// A string such as `"100ms"` or `"reno"`.
    Str(&'static str),
    /// An empty table: every nested parameter takes its default.
    Table,
}

impl Lit {
    /// The literal as a document value.
    pub fn to_value(self) -> Value {
        match self {
            Lit::Bool(b) => Value::Bool(b),
            Lit::Int(i) => Value::from(i),
            Lit::Float(f) => Value::from(f),
            Lit::Str(s) => Value::from(s),
            Lit::Table => Value::Object(Default::default()),
        }
    }
}

/// What an absent key means.
#[derive(Clone, Copy, Debug)]
pub enum Dflt {
    /// This value.
    Value(Lit),
    /// The key is required; the hint shows an example (`rate = "10Mbps"`).
    Required(&'static str),
    /// Nothing: the text says what that means ("unlimited").
    None(&'static str),
    /// Computed from other parameters of the same table; the text says how.
    Derived(&'static str, fn(&Resolved) -> Value),
    /// Set when the scenario is assembled (it depends on other parts of the document); the
    /// text says how.
    Later(&'static str),
}

/// A word standing for "none".
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Alt {
    /// None.
    No,
    /// This string means none; the text says what that means (`w_q = "auto"`).
    Word(&'static str, &'static str),
    /// `false` means none (`report_delay = false`).
    False(&'static str),
    /// `false` means none and `true` the default (`delayed_ack = true`).
    Bool(&'static str),
    /// Each of these strings stands for a value of its own, kept as written; the text says
    /// what each means (DAIMD's `quiet = "hold"` or `"srtt"`, beside a duration).
    Words(&'static [(&'static str, &'static str)]),
}

/// One kind of a kind-tagged table: its name and its parameters.
#[derive(Debug)]
pub struct Kind {
    /// The name written as `kind = "..."`.
    pub name: &'static str,
    /// One line: what it is, with its reference.
    pub about: &'static str,
    /// Its parameters, in groups (a transport shares the TCP sender's group, for example).
    pub params: &'static [&'static [Param]],
    /// Default overrides this kind always applies to its nested tables (ARC's RTO bounds).
    pub layers: &'static [&'static Layer],
    /// Named sets of defaults, one chosen by the value of the key `preset_key` (declared
    /// among the parameters as a choice of their names): Vegas's `preset = "linux"`, and
    /// the TCP stack profiles of issue #19 (`stack = "linux"`).
    pub presets: &'static [&'static Layer],
    /// The key that chooses a preset (`"preset"` unless set).
    pub preset_key: &'static str,
}

impl Kind {
    /// A kind with one group of parameters and no layers.
    pub const fn new(
        name: &'static str,
        about: &'static str,
        params: &'static [&'static [Param]],
    ) -> Kind {
        Kind {
            name,
            about,
            params,
            layers: &[],
            presets: &[],
            preset_key: "preset",
        }
    }

    /// Every parameter, in declaration order.
    pub fn all_params(&self) -> impl Iterator<Item = &'static Param> {
        self.params.iter().flat_map(|g| g.iter())
    }

    /// The parameter called `name`.
    pub fn param(&self, name: &str) -> Option<&'static Param> {
        self.all_params().find(|p| p.name == name)
    }

    /// The preset `m` chooses with this kind's preset key, if any.
    pub fn preset(&self, m: &serde_json::Map<String, Value>) -> Option<&'static Layer> {
        let name = m.get(self.preset_key)?.as_str()?;
        self.presets.iter().find(|l| l.name == name).copied()
    }
}

/// The kinds a kind-tagged table may have.
#[derive(Debug)]
pub struct Kinds {
    /// What a kind is, for messages: "controller", "queue kind".
    pub what: &'static str,
    /// The kinds, in the order messages list them (a registry is a function so that it can
    /// be a list of richer entries, such as `cc::CONTROLLERS`).
    pub list: fn() -> Vec<&'static Kind>,
    /// Appended to "unknown kind" messages (why the list is short).
    pub note: &'static str,
    /// A bare number stands for `{ kind = .0, .1 = number }` (`loss = 0.01`).
    pub number: Option<(&'static str, &'static str)>,
}

impl Kinds {
    /// The kind called `name`.
    pub fn find(&self, name: &str) -> Option<&'static Kind> {
        (self.list)().into_iter().find(|k| k.name == name)
    }

    /// The kinds' names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        (self.list)().iter().map(|k| k.name).collect()
    }
}

/// A named layer of default overrides: a profile. Paths are dotted parameter names relative
/// to the table the layer applies to (`"rto.max"`; a kind-tagged table adds the kind's name:
/// `"cc.vegas.alpha"`).
#[derive(Debug)]
pub struct Layer {
    /// The profile's name, shown as the origin of its values.
    pub name: &'static str,
    /// One line: what it is and where its values come from.
    pub about: &'static str,
    /// Whether its values count as a profile's (`Origin::Profile`) or as the owner's
    /// built-in defaults (`Origin::Default`, as for ARC's RTO bounds).
    pub profile: bool,
    /// (path, value).
    pub values: &'static [(&'static str, Lit)],
}

impl Layer {
    /// The value this layer gives `path`, if any.
    pub fn get(&self, path: &str) -> Option<Lit> {
        self.values
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, v)| *v)
    }
}

/// Where a resolved value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Written in the document.
    Explicit,
    /// From the named profile.
    Profile(&'static str),
    /// The built-in default.
    Default,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Explicit => f.write_str("explicit"),
            Origin::Profile(p) => write!(f, "profile {p}"),
            Origin::Default => f.write_str("default"),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Building declarations: `Param::float("beta", 0.7, Excl(0.0), Excl(1.0)).doc(..).source(..)`.

impl Param {
    /// A parameter of type `ty` with `default`; add `.doc(..)` and `.source(..)`.
    pub const fn new(name: &'static str, ty: Ty, default: Dflt) -> Param {
        Param {
            name,
            ty,
            default,
            alt: Alt::No,
            unit: "",
            doc: "",
            source: "",
        }
    }
    /// A boolean.
    pub const fn boolean(name: &'static str, default: bool) -> Param {
        Param::new(name, Ty::Bool, Dflt::Value(Lit::Bool(default)))
    }
    /// A whole number in `min..=max`.
    pub const fn int(name: &'static str, default: u64, min: u64, max: u64) -> Param {
        Param::new(name, Ty::Int { min, max }, Dflt::Value(Lit::Int(default)))
    }
    /// A number within the bounds.
    pub const fn float(name: &'static str, default: f64, min: Bound, max: Bound) -> Param {
        Param::new(
            name,
            Ty::Float { min, max },
            Dflt::Value(Lit::Float(default)),
        )
    }
    /// A duration ≥ 0 (`default` as written, "100ms").
    pub const fn duration(name: &'static str, default: &'static str) -> Param {
        Param::new(
            name,
            Ty::Duration { positive: false },
            Dflt::Value(Lit::Str(default)),
        )
    }
    /// A duration > 0.
    pub const fn positive_duration(name: &'static str, default: &'static str) -> Param {
        Param::new(
            name,
            Ty::Duration { positive: true },
            Dflt::Value(Lit::Str(default)),
        )
    }
    /// One of `names`.
    pub const fn choice(
        name: &'static str,
        default: &'static str,
        names: &'static [&'static str],
    ) -> Param {
        Param::new(name, Ty::Choice(names), Dflt::Value(Lit::Str(default)))
    }
    /// A size in bytes in `min..=max`.
    pub const fn size(name: &'static str, default: u64, min: u64, max: u64) -> Param {
        Param::new(name, Ty::Size { min, max }, Dflt::Value(Lit::Int(default)))
    }
    /// A nested table of `params`; absent means every default.
    pub const fn table(name: &'static str, params: &'static [Param]) -> Param {
        Param::new(name, Ty::Table(params), Dflt::Value(Lit::Table))
    }
    /// A kind-tagged table; absent means `default` with its defaults.
    pub const fn kinded(name: &'static str, kinds: &'static Kinds, default: &'static str) -> Param {
        Param::new(name, Ty::Kinded(kinds), Dflt::Value(Lit::Str(default)))
    }

    /// What it does (one line).
    pub const fn doc(self, doc: &'static str) -> Param {
        Param { doc, ..self }
    }
    /// Where the default comes from.
    pub const fn source(self, source: &'static str) -> Param {
        Param { source, ..self }
    }
    /// The unit of a plain number.
    pub const fn unit(self, unit: &'static str) -> Param {
        Param { unit, ..self }
    }
    /// A word standing for none.
    pub const fn alt(self, alt: Alt) -> Param {
        Param { alt, ..self }
    }
    /// Required; `hint` is an example such as `rate = "10Mbps"`.
    pub const fn required(self, hint: &'static str) -> Param {
        Param {
            default: Dflt::Required(hint),
            ..self
        }
    }
    /// Absent means none; `meaning` says what that is ("unlimited").
    pub const fn optional(self, meaning: &'static str) -> Param {
        Param {
            default: Dflt::None(meaning),
            ..self
        }
    }
    /// The default is set when the scenario is assembled; `how` says from what.
    pub const fn later(self, how: &'static str) -> Param {
        Param {
            default: Dflt::Later(how),
            ..self
        }
    }
    /// The default, as a document would write it (`"auto"`).
    pub const fn default_to(self, lit: Lit) -> Param {
        Param {
            default: Dflt::Value(lit),
            ..self
        }
    }
    /// The default is computed from the table's other values.
    pub const fn derived(self, how: &'static str, from: fn(&Resolved) -> Value) -> Param {
        Param {
            default: Dflt::Derived(how, from),
            ..self
        }
    }
}

/// The typed value of a table of `params` in which every parameter takes its default: the
/// `Default` of a component's configuration type.
pub fn defaults<T: serde::de::DeserializeOwned>(params: &'static [Param]) -> T {
    let mut cx = Cx::default();
    let r = read::read_fields(
        &mut cx,
        "",
        &Default::default(),
        &[params],
        None,
        &read::Scope::default(),
    );
    match r.config() {
        Ok(t) if cx.problems.is_empty() => t,
        other => panic!(
            "the declared defaults do not fit the type (a declaration bug): {:?} {:?}",
            other.err(),
            cx.problems
        ),
    }
}

#[cfg(test)]
mod tests;
