import Foundation
import XCTest

/// The layer rules of Package.swift's header (`LayerRules`), checked against the target graph
/// declared in Package.swift and against the `import` lines of every target's sources (tests and
/// test support included): a forbidden edge fails here whether it is added to the manifest or only
/// to a file, and so does a declared dependency that nothing imports.
final class LayerRulesTests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Package.swift and every target's import lines, read once for all tests.
    static let package = Result { () throws -> (graph: PackageGraph, imports: [SourceImports]) in
        let graph = try PackageGraph.load(packageRoot)
        return (graph, try SourceImports.load(packageRoot, graph))
    }

    /// Modules of the simulator that a layer may be forbidden to reach.
    static let models = ["InfraModel", "PushModel"]
    static let fronts = ["ScenarioFormat", "Experiments", "PrestageCLI"]

    func testPackageManifestParses() throws {
        let (graph, imports) = try Self.package.get()
        // A parser that silently found nothing would pass every rule below.
        for name in ["CGSL", "CZlib", "Stochastic", "SimKernel", "InfraModel", "PushModel", "PreloadKit", "PreloadKitFoundation",
                     "SimStats", "ReportKit", "LogFit", "ScenarioFormat", "Experiments", "Testbed", "PrestageCLI", "prestage",
                     "ReportKitTesting", "ArchitectureTests"] {
            XCTAssertNotNil(graph.dependencies[name], "Package.swift: expected a target named \(name)")
        }
        XCTAssertEqual(graph.dependencies["prestage"], ["PrestageCLI"])
        XCTAssertEqual(graph.dependencies["PreloadKit"], [])
        XCTAssertEqual(graph.sourceDirectory(of: "ReportKitTesting"), "Tests/ReportKitTesting")
        XCTAssertEqual(graph.sourceDirectory(of: "PushModelTests"), "Tests/PushModelTests")
        XCTAssertEqual(graph.productTargets, ["PreloadKit", "PreloadKitFoundation"])
        XCTAssertEqual(graph.systemLibraries, ["CGSL", "CZlib"])
        XCTAssertTrue(imports.contains { $0.target == "PushModel" && $0.module == "SimKernel" }, "expected import lines under Sources/")
        XCTAssertTrue(imports.contains { $0.target == "ReportKitTests" && $0.module == "ReportKitTesting" }, "expected import lines under Tests/")
    }

    /// Every module has a rule, and neither Package.swift nor any source file reaches beyond it.
    func testManifestAndImportsFollowTheLayerRules() throws {
        let (graph, imports) = try Self.package.get()
        let violations = LayerRules.violations(graph: graph, imports: imports)
        XCTAssertEqual(violations, [], "\n" + violations.joined(separator: "\n"))
    }

    /// Package.swift declares exactly the package modules each target's sources import.
    func testDeclaredDependenciesAreExactlyTheImportedModules() throws {
        let (graph, imports) = try Self.package.get()
        let mismatches = LayerRules.declarationMismatches(graph: graph, imports: imports)
        XCTAssertEqual(mismatches, [], "\n" + mismatches.joined(separator: "\n"))
    }

    func testPreloadKitDependsOnNothingOfTheSimulator() throws {
        let graph = try Self.package.get().graph
        XCTAssertEqual(graph.reachable(from: "PreloadKit"), [])
        XCTAssertEqual(graph.reachable(from: "PreloadKitFoundation"), ["PreloadKit"])
        XCTAssertEqual(graph.shippedModules, ["PreloadKit", "PreloadKitFoundation"])
    }

    func testOnlyStochasticReachesCGSLAndOnlyLogFitReachesCZlib() throws {
        let (graph, imports) = try Self.package.get()
        for (shim, owner) in [("CGSL", "Stochastic"), ("CZlib", "LogFit")] {
            let direct = graph.dependencies.filter { !graph.isTest($0.key) && $0.value.contains(shim) }.keys.sorted()
            XCTAssertEqual(direct, [owner], "only \(owner) may depend on \(shim)")
            let importers = imports.filter { $0.module == shim && !graph.isTest($0.target) }.map(\.target)
            XCTAssertEqual(Set(importers), [owner], "only \(owner) may import \(shim)")
        }
    }

    /// The kernel knows no model and no random streams: the model schedules, the kernel only orders.
    func testKernelDependsOnNoModelAndNoStochastic() throws {
        let graph = try Self.package.get().graph
        let reached = graph.reachable(from: "SimKernel")
        for forbidden in Self.models + Self.fronts {
            XCTAssertFalse(reached.contains(forbidden), "SimKernel must not depend on \(forbidden)")
        }
        XCTAssertFalse(reached.contains("Stochastic"), "SimKernel must not depend on Stochastic")
    }

    func testModelsKnowNoFilesExperimentsOrCommands() throws {
        let graph = try Self.package.get().graph
        for model in Self.models {
            let reached = graph.reachable(from: model)
            for forbidden in Self.fronts { XCTAssertFalse(reached.contains(forbidden), "\(model) must not depend on \(forbidden)") }
        }
    }

    func testFormatKnowsNoExperimentsAndExperimentsKnowNoCommandLineOrTestbed() throws {
        let graph = try Self.package.get().graph
        let format = graph.reachable(from: "ScenarioFormat")
        XCTAssertFalse(format.contains("Experiments"), "ScenarioFormat must not depend on Experiments")
        XCTAssertFalse(format.contains("PrestageCLI"), "ScenarioFormat must not depend on PrestageCLI")
        let experiments = graph.reachable(from: "Experiments")
        XCTAssertFalse(experiments.contains("PrestageCLI"), "Experiments must not depend on PrestageCLI")
        XCTAssertFalse(experiments.contains("Testbed"), "Experiments must not depend on Testbed")
    }

    /// The rules can fail: a graph with forbidden edges breaks each of them.
    func testRulesDetectForbiddenEdges() {
        let bad = PackageGraph(dependencies: ["PreloadKit": ["SimKernel"], "SimKernel": ["PushModel"], "PushModel": ["ScenarioFormat"],
                                              "ScenarioFormat": ["Experiments"], "Experiments": ["PrestageCLI"], "PrestageCLI": []],
                               tests: [])
        XCTAssertTrue(bad.reachable(from: "PreloadKit").contains("SimKernel"))
        XCTAssertTrue(bad.reachable(from: "SimKernel").contains("PrestageCLI"))
        XCTAssertTrue(bad.reachable(from: "ScenarioFormat").contains("PrestageCLI"))
        let violations = LayerRules.violations(graph: bad, imports: [])
        XCTAssertTrue(violations.contains("Package.swift: PreloadKit depends on SimKernel, which its layer rule forbids"), "\(violations)")
        XCTAssertTrue(violations.contains("Package.swift: Experiments depends on PrestageCLI, which its layer rule forbids"), "\(violations)")
    }

    /// Import lines break the rules too: a model in ReportKit, Foundation in PreloadKit, the testbed
    /// in Experiments, CGSL outside Stochastic, the whole client library in Experiments, a module
    /// without a rule, a test reaching past its subject.
    func testRulesDetectForbiddenImportsAndMissingRules() {
        let graph = PackageGraph(dependencies: ["ReportKit": [], "PreloadKit": [], "Experiments": ["PreloadKit"], "LogFit": [],
                                                "Testbed": [], "PushModel": [], "CGSL": [], "Extra": [], "PreloadKitTests": ["PreloadKit"]],
                                 tests: ["PreloadKitTests"])
        func line(_ target: String, _ module: String, _ symbol: String? = nil) -> SourceImports {
            SourceImports(target: target, file: "Sources/\(target)/F.swift", module: module, symbol: symbol)
        }
        let imports = [line("ReportKit", "PushModel"), line("PreloadKit", "Foundation"), line("Experiments", "Testbed"),
                       line("LogFit", "CGSL"), line("Experiments", "PreloadKit"), line("Experiments", "PreloadKit", "SHA256Hasher"),
                       line("PreloadKitTests", "PushModel"), line("PreloadKitTests", "Foundation")]
        XCTAssertEqual(Set(LayerRules.violations(graph: graph, imports: imports)).subtracting(LayerRules.mayImport.keys.map {
            "LayerRules: a rule for \($0), which is no target of Package.swift"
        }), [
            "Sources/ReportKit/F.swift: imports PushModel, which the layer rule of ReportKit forbids",
            "Sources/PreloadKit/F.swift: imports Foundation, which the layer rule of PreloadKit forbids",
            "Sources/Experiments/F.swift: imports Testbed, which the layer rule of Experiments forbids",
            "Sources/LogFit/F.swift: imports CGSL, which the layer rule of LogFit forbids",
            "Sources/Experiments/F.swift: Experiments may import PreloadKit only as scoped imports of SHA256, SHA256Hasher",
            "Sources/PreloadKitTests/F.swift: imports PushModel, which the layer rule of PreloadKitTests forbids",
            "Extra: no layer rule (add it to LayerRules and Package.swift's header)",
        ])
        XCTAssertNotNil(LayerRules.allowedImports(of: "ArchitectureTests", in: PackageGraph(dependencies: [:], tests: ["ArchitectureTests"])))
        XCTAssertNil(LayerRules.allowedImports(of: "Helpers", in: PackageGraph(dependencies: [:], tests: ["Helpers"])))
    }

    /// A declared dependency nothing imports and an import nothing declares are both reported.
    func testMismatchesDetectUnusedAndUndeclaredDependencies() {
        let graph = PackageGraph(dependencies: ["A": ["B"], "B": [], "C": [], "ATests": ["A", "C"], "S": []], tests: ["ATests"],
                                 systemLibraries: ["S"])
        let imports = [SourceImports(target: "A", file: "Sources/A/X.swift", module: "C"),
                       SourceImports(target: "A", file: "Sources/A/X.swift", module: "Foundation"),
                       SourceImports(target: "ATests", file: "Tests/ATests/T.swift", module: "A"),
                       SourceImports(target: "ATests", file: "Tests/ATests/T.swift", module: "C", symbol: "Y")]
        XCTAssertEqual(LayerRules.declarationMismatches(graph: graph, imports: imports), [
            "Package.swift: A declares a dependency on B, which none of its sources imports",
            "Sources/A/X.swift: imports C, which is not a dependency of A in Package.swift",
        ])
    }

    func testManifestParserReadsDependenciesPathsAndProducts() {
        let graph = PackageGraph.parse("""
            products: [.library(name: "Lib", targets: ["A"]), .executable(name: "tool", targets: ["T"])],
            // .target(name: "Commented", dependencies: ["A"]),
            .target(name: "A", dependencies: ["B", .product(name: "C", package: "c")], swiftSettings: x),
            .testTarget(
                name: "ATests",
                dependencies: ["A"]
            ),
            .target(name: "B"),
            .target(name: "Support", dependencies: ["B"], path: "Tests/Support"),
            .systemLibrary(name: "S", pkgConfig: "s"),
            """)
        XCTAssertEqual(graph.dependencies, ["A": ["B", "C"], "ATests": ["A"], "B": [], "Support": ["B"], "S": []])
        XCTAssertEqual(graph.tests, ["ATests"])
        XCTAssertEqual(graph.paths, ["Support": "Tests/Support"])
        XCTAssertEqual(graph.systemLibraries, ["S"])
        XCTAssertEqual(graph.productTargets, ["A"])
        XCTAssertEqual(graph.shippedModules, ["A", "B", "C"])
    }

    func testImportLinesAreReadFromCodeOnly() {
        XCTAssertEqual(SourceImports.modules(in: "import Foundation\n@_spi(Benchmark) import SimKernel\n  @testable import PushModel\n// import CGSL\nimport struct Glibc.stat\n"),
                       ["Foundation", "SimKernel", "PushModel", "Glibc"])
        let embedded = "let script = \"\"\"\nimport json, sys\n\"\"\"\n/* import CGSL\n /* nested */ import CZlib */\nimport enum PreloadKit.SHA256\n"
        XCTAssertEqual(SourceImports.lines(in: embedded).map(\.module), ["PreloadKit"])
        XCTAssertEqual(SourceImports.lines(in: embedded).map(\.symbol), ["SHA256"])
    }
}
