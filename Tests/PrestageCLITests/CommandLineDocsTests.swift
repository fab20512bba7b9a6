import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI

/// Help, completion scripts, the man page and the version, all from the one command table.
final class CommandLineDocsTests: XCTestCase {
    private func output(_ arguments: [String]) throws -> (ExitCode, String, String) {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let code = t.run(arguments)
        return (code, t.out.text, t.err.text)
    }

    func testHelpCommandAndExitCodesPerCommand() throws {
        let (code, help, _) = try output(["help", "compare"])
        XCTAssertEqual(code, .ok)
        XCTAssertEqual(help, try output(["compare", "--help"]).1, "`help COMMAND` is `COMMAND --help`")
        XCTAssertTrue(help.contains("  3    a shown metric regressed significantly"), help)
        XCTAssertFalse(help.contains("130"), "compare is never interrupted into a partial directory")
        let list = try output(["list", "--help"]).1
        XCTAssertFalse(list.contains("130") || list.contains("  1 "), "list shows only the codes it returns:\n\(list)")
        XCTAssertTrue(try output(["run", "--help"]).1.contains("  130  interrupted"))
        XCTAssertEqual(try output(["help", "compear"]).0, .badInput)
        // Every command's documented codes are the ones it is declared with, and each is a real ExitCode.
        for command in PrestageCLI.spec.commands {
            XCTAssertFalse(command.exitCodes.isEmpty, command.name)
            XCTAssertTrue(command.exitCodes.contains { $0.code == .ok } && command.exitCodes.contains { $0.code == .badInput }, command.name)
        }
        // The sweep examples name files that exist.
        let sweep = try output(["sweep", "--help"]).1
        for path in ["notebooks-export/sweeps/warm-ahead.json"] {
            XCTAssertTrue(sweep.contains(path))
            XCTAssertTrue(FileManager.default.fileExists(atPath: TestEnvironment.packageRoot.appendingPathComponent(path).path), path)
        }
    }

    /// The exit codes are stated once, by the command table: one "exit codes" block in the
    /// program's help and in each command's (`plan` once added a hand-written second one to its
    /// footer), and one "Exit codes:" list per command in the man page.
    func testEveryHelpStatesItsExitCodesOnce() throws {
        func blocks(_ text: String) -> Int {
            text.split(separator: "\n").filter { $0.lowercased().hasPrefix("exit codes") }.count
        }
        XCTAssertEqual(blocks(try output(["help"]).1), 1)
        for command in PrestageCLI.spec.commands {
            let (code, help, _) = try output(["help", command.name])
            XCTAssertEqual(code, .ok, command.name)
            XCTAssertEqual(blocks(help), 1, "\(command.name):\n\(help)")
        }
        let page = try output(["man"]).1
        let sections = page.components(separatedBy: "\n.SS ").dropFirst()
        XCTAssertEqual(sections.count, PrestageCLI.spec.commands.count)
        for section in sections {
            XCTAssertEqual(blocks(section), 1, "man page: \(section.prefix(60))")
        }
    }

    /// Every option of every command keeps at least two spaces between its name and its help text,
    /// however long the name (`bench --require-instructions` once ran into its text).
    func testEveryOptionNameStandsApartFromItsHelp() throws {
        for command in PrestageCLI.spec.commands {
            let help = PrestageCLI.spec.helpText(for: command.name)
            for o in command.options {
                let left = "--" + o.name + (o.kind == .flag ? "" : " " + o.valueName)
                let line = help.split(separator: "\n").first { $0.hasPrefix("  " + left) }
                XCTAssertNotNil(line, "\(command.name): no help line for \(left)")
                if let line { XCTAssertTrue(line.dropFirst(2 + left.count).hasPrefix("  "), "\(command.name): \(line)") }
            }
        }
    }

    func testVersionNamesTheSourceRevision() throws {
        let (code, version, _) = try output(["--version"])
        XCTAssertEqual(code, .ok)
        XCTAssertTrue(version.hasPrefix("prestage 0."), version)
        if let revision = SourceRevision.current {
            XCTAssertEqual(revision.count, 12)
            XCTAssertTrue(version.contains("(source " + revision + ")"), version)
        }
    }

    func testForeignCompletionFlagPointsAtTheCompletionCommand() throws {
        let (code, _, err) = try output(["--generate-completion-script"])
        XCTAssertEqual(code, .badInput)
        XCTAssertEqual(err, "prestage: unknown option --generate-completion-script; did you mean `prestage completion bash` (or zsh, fish)?\n")
    }

    func testSweepOfAScenarioSaysSoAndShowsTheRightCommand() throws {
        let (code, _, err) = try output(["sweep", "warm-ahead-sweep"])
        XCTAssertEqual(code, .badInput)
        XCTAssertTrue(err.contains("warm-ahead-sweep: expected a sweep file, found a scenario. Run the scenario with:\n  prestage run warm-ahead-sweep\n"), err)
    }

    /// Loads the bash script in a real bash and asks it for completions.
    func testBashCompletionCompletesCommandsOptionsAndChoices() throws {
        guard FileManager.default.isExecutableFile(atPath: "/bin/bash") else { throw XCTSkip("no bash") }
        let script = try output(["completion", "bash"]).1
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("prestage-completion-\(UUID().uuidString).bash")
        try Data(script.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        func complete(_ words: [String]) throws -> String {
            let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", "source '\(file.path)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _prestage; echo \"${COMPREPLY[*]}\""]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        XCTAssertEqual(try complete(["prestage", "ru"]), "run")
        XCTAssertEqual(try complete(["prestage", "compare", "A", "B", "--fa"]), "--fail-on-regression")
        XCTAssertEqual(try complete(["prestage", "sweep", "x.json", "--me"]), "--metrics")
        XCTAssertEqual(try complete(["prestage", "completion", ""]), "bash zsh fish")
        XCTAssertEqual(try complete(["prestage", "help", "swe"]), "sweep")
        XCTAssertEqual(try complete(["prestage", "run", "default", "--replications", ""]), "", "a number: no file names")
        // zsh and fish scripts are generated from the same table.
        let zsh = try output(["completion", "zsh"]).1, fish = try output(["completion", "fish"]).1
        XCTAssertTrue(zsh.hasPrefix("#compdef prestage\n") && zsh.contains("'--fail-on-regression[exit 3 when a shown metric regressed significantly]'"))
        XCTAssertTrue(fish.contains("complete -c prestage -n '__fish_seen_subcommand_from compare' -l fail-on-regression"))
        XCTAssertEqual(try output(["completion", "tcsh"]).0, .badInput)
    }

    /// The man page renders with `man -l` and lists every command and option.
    func testManPageRendersWithMan() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/man") else {
            if ProcessInfo.processInfo.environment["CI"] == nil { throw XCTSkip("man is not installed (`make deps` installs man-db)") }
            XCTFail("CI is set but man is missing; `make deps` installs man-db and groff-base")
            return
        }
        let page = try output(["man"]).1
        XCTAssertTrue(page.unicodeScalars.allSatisfy { $0.value < 128 }, "the page is plain ASCII (groff escapes)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("prestage-\(UUID().uuidString).1")
        try Data(page.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/man")
        process.arguments = ["-l", file.path]
        var environment = ProcessInfo.processInfo.environment
        environment["MANPAGER"] = "cat"
        environment["MANWIDTH"] = "100"
        process.environment = environment
        let pipe = Pipe(), errors = Pipe()
        process.standardOutput = pipe
        process.standardError = errors
        try process.run()
        let rendered = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, problems)
        XCTAssertEqual(problems, "", "man/groff warnings")
        XCTAssertTrue(rendered.contains("PRESTAGE(1)"), rendered)
        for command in PrestageCLI.spec.commands {
            XCTAssertTrue(rendered.contains("prestage " + command.name), command.name)
            for option in command.options { XCTAssertTrue(rendered.contains("--" + option.name), "\(command.name) --\(option.name)") }
        }
        XCTAssertTrue(rendered.contains("EXIT STATUS"))
    }
}
