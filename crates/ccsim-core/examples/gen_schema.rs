//! Write the generated artefacts of the parameter declarations: the JSON Schema of scenario
//! documents (python/ccsim/schema/scenario.schema.json, shipped in the wheel) and the
//! parameter reference (docs/parameters.md). `tests/generated.rs` fails when they are stale.
//!
//!     cargo run -p ccsim-core --example gen_schema

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let schema = root.join("python/ccsim/schema/scenario.schema.json");
    let reference = root.join("docs/parameters.md");
    std::fs::create_dir_all(schema.parent().expect("a directory")).expect("schema directory");
    std::fs::write(&schema, ccsim_core::scenario::schema_text()).expect("write the schema");
    std::fs::write(&reference, ccsim_core::scenario::document::reference())
        .expect("write the reference");
    println!("wrote {} and {}", schema.display(), reference.display());
}
