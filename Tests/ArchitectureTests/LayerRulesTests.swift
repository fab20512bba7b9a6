import Foundation
import XCTest

/// The layer rules of Package.swift's header, checked against the target graph declared in
/// Package.swift and against the `import` lines of every source file: a forbidden edge fails here
/// whether it is added to the manifest or only to a file.
final class LayerRulesTests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Modules of the simulator that a layer may be forbidden to reach.
    static let models = ["InfraModel", "PushModel"]
    static let fronts = ["ScenarioFormat", "Experiments", "PrestageCLI"]

    func testPackageManifestParses() throws {
        let graph = try PackageGraph.load(Self.packageRoot)
        // A parser that silently found nothing would pass every rule below.
        for name in ["CGSL", "Stochastic", "SimKernel", "InfraModel", "PushModel", "PreloadKit", "PreloadKitFoundation",
                     "SimStats", "ReportKit", "ScenarioFormat", "Experiments", "Testbed", "PrestageCLI", "prestage"] {
            XCTAssertNotNil(graph.dependencies[name], "Package.swift: expected a target named \(name)")
        }
        XCTAssertEqual(graph.dependencies["prestage"], ["PrestageCLI"])
        XCTAssertEqual(graph.dependencies["PreloadKit"], [])
    }

    func testPreloadKitDependsOnNothingOfTheSimulator() throws {
        let graph = try PackageGraph.load(Self.packageRoot)
        XCTAssertEqual(graph.reachable(from: "PreloadKit"), [])
        XCTAssertEqual(graph.reachable(from: "PreloadKitFoundation"), ["PreloadKit"])
    }

    func testOnlyStochasticReachesCGSL() throws {
        let graph = try PackageGraph.load(Self.packageRoot)
        let direct = graph.dependencies.filter { !graph.isTest($0.key) && $0.value.contains("CGSL") }.keys.sorted()
        XCTAssertEqual(direct, ["Stochastic"], "only Stochastic may depend on CGSL")
        let importers = try SourceImports.load(Self.packageRoot).filter { $0.module == "CGSL" }.map(\.target)
        XCTAssertEqual(Set(importers), ["Stochastic"], "only Stochastic may import CGSL")
    }

    /// The kernel knows no model and no random streams: the model schedules, the kernel only orders.
    func testKernelDependsOnNoModelAndNoStochastic() throws {
        let graph = try PackageGraph.load(Self.packageRoot)
        let reached = graph.reachable(from: "SimKernel")
        for forbidden in Self.models + Self.fronts {
            XCTAssertFalse(reached.contains(forbidden), "SimKernel must not depend on \(forbidden)")
        }
        XCTAssertFalse(reached.contains("Stochastic"), "SimKernel must not depend on Stochastic")
    }

    func testModelsKnowNoFilesExperimentsOrCommands() throws {
        let graph = try PackageGraph.load(Self.packageRoot)
        for model in Self.models {
            let reached = graph.reachable(from: model)
            for forbidden in Self.fronts { XCTAssertFalse(reached.contains(forbidden), "\(model) must not depend on \(forbidden)") }
        }
    }

    func testFormatKnowsNoExperimentsAndExperimentsKnowNoCommandLine() throws {
        let graph = try PackageGraph.load(Self.packageRoot)
        let format = graph.reachable(from: "ScenarioFormat")
        XCTAssertFalse(format.contains("Experiments"), "ScenarioFormat must not depend on Experiments")
        XCTAssertFalse(format.contains("PrestageCLI"), "ScenarioFormat must not depend on PrestageCLI")
        XCTAssertFalse(graph.reachable(from: "Experiments").contains("PrestageCLI"), "Experiments must not depend on PrestageCLI")
    }

    /// Every `import X` of a package module in Sources/<Target>/ is a declared dependency of that
    /// target, so the rules above (checked on the declared graph) hold for the code itself.
    func testEverySourceImportIsADeclaredDependency() throws {
        let graph = try PackageGraph.load(Self.packageRoot)
        let modules = Set(graph.dependencies.keys)
        let imports = try SourceImports.load(Self.packageRoot)
        XCTAssertFalse(imports.isEmpty, "expected import lines under Sources/")
        for i in imports where modules.contains(i.module) && i.module != i.target {
            XCTAssertTrue(graph.dependencies[i.target]?.contains(i.module) ?? false,
                          "\(i.file): imports \(i.module), which is not a dependency of \(i.target) in Package.swift")
        }
    }

    /// The rules can fail: a graph with forbidden edges breaks each of them.
    func testRulesDetectForbiddenEdges() {
        let bad = PackageGraph(dependencies: ["PreloadKit": ["SimKernel"], "SimKernel": ["PushModel"], "PushModel": ["ScenarioFormat"],
                                              "ScenarioFormat": ["Experiments"], "Experiments": ["PrestageCLI"], "PrestageCLI": []],
                               tests: [])
        XCTAssertTrue(bad.reachable(from: "PreloadKit").contains("SimKernel"))
        XCTAssertTrue(bad.reachable(from: "SimKernel").contains("PrestageCLI"))
        XCTAssertTrue(bad.reachable(from: "ScenarioFormat").contains("PrestageCLI"))
        XCTAssertEqual(PackageGraph.parse("""
            .target(name: "A", dependencies: ["B", .product(name: "C", package: "c")], swiftSettings: x),
            .testTarget(
                name: "ATests",
                dependencies: ["A"]
            ),
            .target(name: "B"),
            """).dependencies, ["A": ["B", "C"], "ATests": ["A"], "B": []])
        XCTAssertEqual(SourceImports.modules(in: "import Foundation\n@_spi(Benchmark) import SimKernel\n  @testable import PushModel\n// import CGSL\nimport struct Glibc.stat\n"),
                       ["Foundation", "SimKernel", "PushModel", "Glibc"])
    }
}

/// The target graph declared in Package.swift: each target's direct dependencies.
struct PackageGraph {
    var dependencies: [String: Set<String>]
    var tests: Set<String>

    func isTest(_ name: String) -> Bool { tests.contains(name) }

    /// Every target reachable from `name` through dependencies (not `name` itself).
    func reachable(from name: String) -> Set<String> {
        var seen: Set<String> = []
        var stack = Array(dependencies[name] ?? [])
        while let next = stack.popLast() {
            guard seen.insert(next).inserted else { continue }
            stack.append(contentsOf: dependencies[next] ?? [])
        }
        return seen
    }

    static func load(_ root: URL) throws -> PackageGraph {
        parse(try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8))
    }

    /// Reads `.target(name: "X", dependencies: [...])` (and the other target kinds); a dependency
    /// given as `.product(name: "Y", …)` or `.target(name: "Y", …)` counts as Y.
    static func parse(_ manifest: String) -> PackageGraph {
        let targetPattern = #/\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)"(\s*,\s*dependencies:\s*\[([^\]]*)\])?/#
        let namePattern = #/"([^"]+)"/#
        var graph = PackageGraph(dependencies: [:], tests: [])
        for match in manifest.matches(of: targetPattern) {
            let name = String(match.output.2)
            var deps: Set<String> = []
            if let list = match.output.4 {
                // In `.product(name: "Y", package: "p")` only the first string is the module.
                for item in list.split(separator: ",", omittingEmptySubsequences: true) {
                    let text = item.trimmingCharacters(in: .whitespacesAndNewlines)
                    guard !text.hasPrefix("package:"), !text.hasPrefix("condition:"), let m = text.firstMatch(of: namePattern) else { continue }
                    deps.insert(String(m.output.1))
                }
            }
            graph.dependencies[name] = deps
            if match.output.1 == "testTarget" { graph.tests.insert(name) }
        }
        return graph
    }
}

/// One `import` line of a file under Sources/.
struct SourceImports {
    let target: String
    let file: String
    let module: String

    static func load(_ root: URL) throws -> [SourceImports] {
        let sources = root.appendingPathComponent("Sources", isDirectory: true)
        var out: [SourceImports] = []
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let dir = sources.appendingPathComponent(target, isDirectory: true)
            guard let walker = FileManager.default.enumerator(atPath: dir.path) else { continue }
            for case let relative as String in walker where relative.hasSuffix(".swift") {
                let text = try String(contentsOf: dir.appendingPathComponent(relative), encoding: .utf8)
                for module in modules(in: text) {
                    out.append(SourceImports(target: target, file: "Sources/\(target)/\(relative)", module: module))
                }
            }
        }
        return out
    }

    /// The modules named by import lines (`import X`, `@testable import X`, `@_spi(S) import X`,
    /// `import struct X.Y`), in order.
    static func modules(in text: String) -> [String] {
        let pattern = #/^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)/#
        return text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
            line.firstMatch(of: pattern).map { String($0.output.1) }
        }
    }
}
