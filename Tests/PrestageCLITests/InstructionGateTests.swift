import Foundation
import XCTest
@testable import Experiments

/// The instruction-count gate: reading callgrind's profile, grouping by Swift module, the +3 %
/// margin, and the report's "where it moved" tables.
final class InstructionGateTests: XCTestCase {
    /// A callgrind profile in the shape valgrind 3.19 writes with `--compress-strings=no
    /// --compress-pos=no`, plus one compressed name, a call whose inclusive cost must not count
    /// towards the caller, and a C function.
    static let profile = """
    # callgrind format
    version: 1
    creator: callgrind-3.19.0
    pid: 42
    cmd: prestage bench-instructions --suite scenarios/bench
    part: 1

    desc: Timerange: Basic block 0 - 100
    positions: line
    events: Ir
    summary: 1000

    ob=/work/.build/release/prestage
    fl=/src/Experiments/BenchInstructions.swift
    fn=$s11Experiments17BenchInstructionsO10countedRunys6UInt64VSay14ScenarioFormat0F4FileVG_SitKFZ
    10 5
    cob=/work/.build/release/prestage
    cfi=/src/PushModel/PushWorld.swift
    cfn=(7) $s9PushModel9PushWorldV4stepyyF
    calls=1 20
    10 700
    ob=/work/.build/release/prestage
    fl=/src/PushModel/PushWorld.swift
    fn=(7)
    20 600
    21 100
    fn=$sSa6appendyyxnF9PushModel5EventV_Tg5
    5 50
    ob=/usr/lib/x86_64-linux-gnu/libgsl.so.27.0.0
    fl=???
    fn=gsl_rng_uniform
    0 245

    totals: 1000
    """

    func testParsesSelfCostsSkippingInclusiveCallCosts() throws {
        let p = try CallgrindProfile.parse(Self.profile)
        XCTAssertEqual(p.total, 1000)
        XCTAssertEqual(p.functions.map(\.instructions), [700, 245, 50, 5])
        XCTAssertEqual(p.functions.first?.name, "$s9PushModel9PushWorldV4stepyyF", "the compressed name (7) resolves")
        XCTAssertEqual(p.functions.reduce(0) { $0 + $1.instructions }, 1000, "self costs add up to the total")
    }

    func testGroupsByModuleFromTheMangledName() throws {
        let p = try CallgrindProfile.parse(Self.profile)
        XCTAssertEqual(p.modules.map(\.module), ["PushModel", "[libgsl.so.27.0.0]", "Swift", "Experiments"])
        XCTAssertEqual(CallgrindProfile.module(symbol: "$s10PreloadKit14PreloadSessionV4stepyyF", object: "x"), "PreloadKit")
        XCTAssertEqual(CallgrindProfile.module(symbol: "$sSD8_VariantV", object: "/lib/libswiftCore.so"), "Swift")
        XCTAssertEqual(CallgrindProfile.module(symbol: "malloc", object: "/lib/libc.so.6"), "[libc.so.6]")
        XCTAssertEqual(CallgrindProfile.module(symbol: "$s99Short", object: "/bin/p"), "[p]", "a length beyond the name is not a module")
    }

    func testNotAProfileIsAnError() {
        XCTAssertThrowsError(try CallgrindProfile.parse("hello\nworld\n"))
        XCTAssertThrowsError(try CallgrindProfile.parse("events: Ir Dr\n"))
    }

    func measurement(total: UInt64, events: UInt64 = 100) throws -> BenchInstructionMeasurement {
        let text = Self.profile.replacingOccurrences(of: "totals: 1000", with: "totals: \(total)")
        return BenchInstructionMeasurement(counter: "callgrind (callgrind-3.19.0)", scenarios: ["a"], devicesMax: BenchInstructions.devicesMax,
                                           events: events, profile: try CallgrindProfile.parse(text))
    }

    func testMarginIsThreePercent() throws {
        let base = BenchInstructionBaseline(try measurement(total: 1_000_000))
        XCTAssertEqual(BenchInstructionCheck.compare(try measurement(total: 1_030_000), baseline: base).verdict, .pass)
        XCTAssertEqual(BenchInstructionCheck.compare(try measurement(total: 1_030_001), baseline: base).verdict, .regression)
        XCTAssertEqual(BenchInstructionCheck.compare(try measurement(total: 1_050_000), baseline: base).verdict, .regression)
        XCTAssertEqual(BenchInstructionCheck.compare(try measurement(total: 960_000), baseline: base).verdict, .improvement)
        XCTAssertTrue(BenchVerdict.regression.fails)
        XCTAssertFalse(BenchInstructionCheck.skipped("no valgrind").verdict.fails, "a missing valgrind is a note, not a failure")
        XCTAssertTrue(BenchInstructionCheck.failed("no valgrind").verdict.fails, "unless the count is required")
    }

    func testReportShowsModulesAndTheFunctionsThatMoved() throws {
        var base = BenchInstructionBaseline(try measurement(total: 1000))
        base.instructions = 900
        base.modules = base.modules.map { $0.name == "PushModel" ? .init(name: $0.name, instructions: 600) : $0 }
        base.functions = base.functions.map { $0.name.contains("PushWorld") ? .init(name: $0.name, instructions: 600) : $0 }
        let check = BenchInstructionCheck.compare(try measurement(total: 1000), baseline: base)
        XCTAssertEqual(check.verdict, .regression)
        XCTAssertEqual(check.modules.first, .init(name: "PushModel", baseline: 600, now: 700))
        XCTAssertEqual(check.functions.map(\.name), ["$s9PushModel9PushWorldV4stepyyF"], "only functions that moved")
        let report = BenchReport(metrics: [], fingerprints: [], instructions: check,
                                 speed: BenchSpeedCheck(baselineRatio: nil, nowRatio: nil, factor: nil, verdict: .skipped, note: "n/a"), errors: [], notes: [])
        XCTAssertTrue(report.fails)
        let md = report.markdown()
        XCTAssertTrue(md.contains("| `PushModel` | 600 | 700 | +100 (+16.7 %) |"), md)
        XCTAssertTrue(md.contains("| `$s9PushModel9PushWorldV4stepyyF` | 600 | 700 | +100 (+16.7 %) |"), md)
        XCTAssertTrue(report.text().contains("instructions: regression"), report.text())
    }

    func testAFunctionNewAmongTheMostExpensiveRanksByItsCount() throws {
        var base = BenchInstructionBaseline(try measurement(total: 1000))
        base.functions = base.functions.filter { !$0.name.hasPrefix("gsl_") }
            .map { $0.name.contains("PushWorld") ? .init(name: $0.name, instructions: 600) : $0 }
        let rows = BenchInstructionCheck.compare(try measurement(total: 1000), baseline: base).functions
        XCTAssertEqual(rows.map(\.name), ["gsl_rng_uniform", "$s9PushModel9PushWorldV4stepyyF"], "245 new before +100")
        XCTAssertNil(rows[0].baseline)
    }

    func testCountsAreGroupedInThousands() {
        XCTAssertEqual(BenchReport.count(185_533_761), "185,533,761")
        XCTAssertEqual(BenchReport.count(999), "999")
        XCTAssertEqual(BenchReport.count(1_000), "1,000")
        XCTAssertEqual(BenchReport.count(nil), "—")
    }
}
