//! Each command's output and exit code, as files: `tests/cmd/*.toml`.

#[test]
fn cli_tests() {
    trycmd::TestCases::new().case("tests/cmd/*.toml");
}
