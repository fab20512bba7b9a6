import Foundation
import XCTest
@testable import PrestageCLI

/// What a new user meets first: bare `prestage` prints the usage, and `help` lists commands in the
/// order they are used (find a scenario, run it, check, compare, plan), the tools last.
final class FirstStepsTests: XCTestCase {
    func testBarePrestagePrintsTheUsageAndExitsTwo() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        XCTAssertEqual(t.run([]), .badInput)
        XCTAssertTrue(t.err.text.hasPrefix("usage: prestage COMMAND [options]\n"), t.err.text)
        XCTAssertTrue(t.err.text.contains("\n  run "), t.err.text)
        XCTAssertTrue(t.err.text.hasSuffix("prestage: expected a command (see --help)\n"), t.err.text)
    }

    func testHelpListsCommandsInTheOrderTheyAreUsed() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        XCTAssertEqual(t.run(["help"]), .ok)
        let names = t.out.text.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }.filter { !$0.hasPrefix("-") && !($0.first?.isNumber ?? true) }
        XCTAssertEqual(Array(names.prefix(5)), ["list", "run", "validate", "compare", "plan"], t.out.text)
        XCTAssertLessThan(try XCTUnwrap(names.firstIndex(of: "plan")), try XCTUnwrap(names.firstIndex(of: "sweep")))
        XCTAssertEqual(Array(names.suffix(3)), ["completion", "man", "help"], t.out.text)
    }
}
