//! The generated artefacts of the parameter declarations are checked in and up to date:
//! run `cargo run -p ccsim-core --example gen_schema` after changing a declaration.

use std::path::Path;

fn checked_in(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[track_caller]
fn assert_fresh(rel: &str, generated: &str) {
    let file = checked_in(rel);
    if file != generated {
        let line = file
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .map_or(
                file.lines().count().min(generated.lines().count()) + 1,
                |i| i + 1,
            );
        panic!(
            "{rel} is stale (first difference at line {line}): run \
             `cargo run -p ccsim-core --example gen_schema` and commit the result"
        );
    }
}

#[test]
fn the_parameter_reference_is_up_to_date() {
    assert_fresh(
        "docs/parameters.md",
        &ccsim_core::scenario::document::reference(),
    );
}

#[test]
fn the_json_schema_is_up_to_date() {
    assert_fresh(
        "python/ccsim/schema/scenario.schema.json",
        &ccsim_core::scenario::schema_text(),
    );
}

#[test]
fn the_worked_example_of_adding_a_controller_is_the_compiled_file() {
    let doc = checked_in("docs/adding-a-controller.md");
    let file = checked_in("crates/ccsim-core/src/cc/example_aimd.rs");
    let start = doc
        .find("```rust\n//! Generalised AIMD")
        .expect("the worked example in docs/adding-a-controller.md")
        + "```rust\n".len();
    let len = doc[start..].find("```").expect("the end of the example");
    assert_eq!(
        &doc[start..start + len],
        file,
        "docs/adding-a-controller.md's example differs from src/cc/example_aimd.rs"
    );
}
