import XCTest
@testable import PrestageCLI

final class CommandLineTests: XCTestCase {
    let spec = CommandLineSpec(programName: "prestage", version: "0.1.0", commands: [
        CommandSpec("run", summary: "run a scenario", positionals: ["SCENARIO"], options: [
            OptionSpec("out", .string, valueName: "DIR", help: "results directory"),
            OptionSpec("replications", .integer(1...10_000), valueName: "N", help: "independent replications"),
            OptionSpec("seed", .unsignedInteger, valueName: "S", help: "master seed"),
            OptionSpec("set", .string, valueName: "PATH=VALUE", repeatable: true, help: "override a scenario value"),
            OptionSpec("dry-run", .flag, help: "validate only"),
        ]),
        CommandSpec("validate", summary: "check a scenario file", positionals: ["SCENARIO"], options: []),
    ])

    func testParsesTypedValuesRepeatedOptionsAndInlineForms() throws {
        let r = spec.parse(["run", "s.json", "--out", "results", "--replications=30", "--seed", "18446744073709551615",
                            "--set", "a.b=1", "--set=c[0]=x", "--dry-run"])
        guard case let .run(cmd) = try r.get() else { return XCTFail("\(r)") }
        XCTAssertEqual(cmd.command, "run")
        XCTAssertEqual(cmd.positionals, ["s.json"])
        XCTAssertEqual(cmd.string("out"), "results")
        XCTAssertEqual(cmd.integer("replications"), 30)
        XCTAssertEqual(cmd.unsignedInteger("seed"), UInt64.max)
        XCTAssertEqual(cmd.strings("set"), ["a.b=1", "c[0]=x"])
        XCTAssertTrue(cmd.flag("dry-run"))
        XCTAssertNil(cmd.string("missing"))
        guard case let .run(dashed) = try spec.parse(["run", "--", "-odd-name.json"]).get() else { return XCTFail() }
        XCTAssertEqual(dashed.positionals, ["-odd-name.json"])
    }

    func testErrorsNameTheFlagAndValueAndSuggestSpellings() {
        func error(_ args: [String]) -> String? {
            if case let .failure(e) = spec.parse(args) { return e.description }
            return nil
        }
        XCTAssertEqual(error(["run", "s.json", "--replications", "ten"]),
                       #"--replications: expected an integer in 1...10000, found "ten""#)
        XCTAssertEqual(error(["run", "s.json", "--replications", "0"]),
                       #"--replications: expected an integer in 1...10000, found "0""#)
        XCTAssertEqual(error(["run", "s.json", "--seed", "-1"]),
                       #"--seed: expected an integer in 0...18446744073709551615, found "-1""#)
        XCTAssertEqual(error(["run", "s.json", "--replication", "3"]), "run: unknown option --replication; did you mean --replications?")
        XCTAssertEqual(error(["run", "s.json", "--colour"]), "run: unknown option --colour")
        XCTAssertEqual(error(["rn", "s.json"]), #"unknown command "rn"; did you mean "run"?"#)
        XCTAssertEqual(error(["--verison"]), "unknown option --verison; did you mean --version?", "main adds the one \"prestage: \"")
        XCTAssertEqual(error(["run", "s.json", "--out"]), "--out: expected DIR, found nothing")
        XCTAssertEqual(error(["run", "s.json", "--out", "a", "--out", "b"]), "--out: given more than once")
        XCTAssertEqual(error(["run", "s.json", "--dry-run=yes"]), #"--dry-run: expected no value, found "yes""#)
        XCTAssertEqual(error(["run"]), "run: expected SCENARIO, found nothing")
        XCTAssertEqual(error(["run", "a.json", "b.json"]), #"run: unexpected argument "b.json""#)
        XCTAssertEqual(error([]), "expected a command (see --help)")
        XCTAssertEqual(error(Array(repeating: "x", count: 10_001)), "expected at most 10000 arguments, found 10001")
    }

    func testHelpAndVersion() throws {
        XCTAssertEqual(try spec.parse(["--help"]).get(), .help(command: nil))
        XCTAssertEqual(try spec.parse(["run", "--out", "x", "-h"]).get(), .help(command: "run"))
        XCTAssertEqual(try spec.parse(["validate", "--version"]).get(), .version)
        let help = spec.helpText(for: "run")
        XCTAssertTrue(help.hasPrefix("usage: prestage run SCENARIO [options]"), help)
        XCTAssertTrue(help.contains("--set PATH=VALUE"), help)
        XCTAssertTrue(help.contains("(repeatable)"), help)
        XCTAssertTrue(spec.helpText().contains("validate"), spec.helpText())
    }

    /// Every option a command declares is read into the command it builds: giving the option (at
    /// either end of an integer's range) changes the command. So a declared option cannot be
    /// forgotten by `init(parsed:)`, and since options are read through their declarations, no
    /// option name is written twice.
    func testEveryDeclaredOptionIsReadIntoTheCommand() {
        func check<C: ParsableCommand>(_ type: C.Type) {
            let spec = C.configuration
            let positionals = spec.positionals.map { _ in "x" }
            let plain = C(parsed: ParsedCommand(command: spec.name, positionals: positionals, values: [:]))
            for option in spec.options {
                let samples: [OptionValue]
                switch option.kind {
                case .flag: samples = [.flag]
                case .string: samples = [.string("x")]
                case let .integer(range): samples = [.integer(range.lowerBound), .integer(range.upperBound)]
                case .unsignedInteger: samples = [.unsignedInteger(0), .unsignedInteger(.max)]
                }
                let read = samples.contains { value in
                    C(parsed: ParsedCommand(command: spec.name, positionals: positionals, values: [option.name: [value]])) != plain
                }
                XCTAssertTrue(read, "\(spec.name): --\(option.name) is declared but not read")
            }
        }
        for type in PrestageCLI.commands { check(type) }
    }

    /// The command table is the list of command types: one entry per type, each found by its name.
    func testDispatchFindsEveryCommandTypeByItsDeclaredName() {
        let names = PrestageCLI.commands.map { $0.configuration.name }
        XCTAssertEqual(names, PrestageCLI.spec.commands.map(\.name))
        XCTAssertEqual(Set(names).count, names.count, "command names are unique")
        for type in PrestageCLI.commands {
            XCTAssertEqual(PrestageCLI.command(named: type.configuration.name).map(ObjectIdentifier.init), ObjectIdentifier(type), type.configuration.name)
        }
        XCTAssertEqual(PrestageCLI.spec.commands.filter(\.isVariadic).map(\.name), ["validate", "merge", "fit"])
    }
}
