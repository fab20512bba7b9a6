/// The layer rules of Package.swift's header: for every module, what it may import (modules of the
/// package and of the platform alike). Anything a module's manifest entry or sources reach beyond
/// its rule is a violation; so is a module without a rule.
enum LayerRules {
    /// What each non-test module may import. A module missing here has no rule and fails.
    static let mayImport: [String: Set<String>] = [
        // Layer 0: the C libraries, each reached only through its shim, by one module.
        "CGSL": [],
        "CZlib": [],
        // The client logic an app ships: nothing of the package, not even Foundation.
        "PreloadKit": [],
        // The real driver an app ships: PreloadKit against URLSession and the file system.
        "PreloadKitFoundation": ["PreloadKit", "Foundation", "FoundationNetworking"],
        // Random streams and distributions: the only module that imports CGSL.
        "Stochastic": ["CGSL", "Glibc", "Darwin"],
        // Virtual time, the pending-event set and the run loop: the standard library only.
        "SimKernel": [],
        "InfraModel": ["SimKernel", "Stochastic", "Foundation"],
        "SimStats": ["Stochastic", "Foundation"],
        // The models drive PreloadKit itself in virtual time.
        "PushModel": ["InfraModel", "SimKernel", "Stochastic", "SimStats", "PreloadKit", "Foundation"],
        // Reports from plain data: no model.
        "ReportKit": ["Foundation"],
        // Calibration from logs: no model; the only module that imports CZlib.
        "LogFit": ["Stochastic", "CZlib", "Foundation"],
        // The scenario file configures PreloadKit's policy, so the format imports the client
        // library anyway; its content hashes use PreloadKit's SHA-256 (see `scopedImports`).
        "ScenarioFormat": ["PushModel", "InfraModel", "Stochastic", "PreloadKit", "Foundation", "Glibc"],
        // No Testbed, no LogFit, no command line; PreloadKit for its SHA-256 only (`scopedImports`).
        "Experiments": ["ScenarioFormat", "PushModel", "SimStats", "ReportKit", "SimKernel", "Stochastic", "PreloadKit",
                        "Foundation", "Dispatch", "Glibc"],
        // Real software against the model: the experiments, the model and the real client driver.
        "Testbed": ["Experiments", "ScenarioFormat", "PushModel", "InfraModel", "Stochastic", "SimStats", "ReportKit",
                    "PreloadKit", "PreloadKitFoundation", "Foundation", "FoundationNetworking", "Glibc"],
        "PrestageCLI": ["Experiments", "ScenarioFormat", "Testbed", "LogFit", "PushModel", "ReportKit", "Foundation", "Dispatch", "Glibc"],
        "prestage": ["PrestageCLI", "Foundation"],
        "prestage-kernel-bench": ["SimKernel", "Stochastic", "PushModel", "ScenarioFormat", "Foundation", "Glibc", "Darwin"],
        // Test support (under Tests/): only test targets may import it.
        "ReportKitTesting": ["ReportKit", "Foundation", "XCTest"],
    ]

    /// Modules a module may import only through scoped imports of the listed declarations
    /// (`import struct M.Name`).
    ///
    /// Experiments reaches the client library for SHA-256 alone (bench fingerprints, sweep result
    /// hashes), never for client logic. PreloadKit's FIPS 180-4 SHA-256 is the package's one
    /// implementation: it must live in PreloadKit, which ships in apps and depends on nothing, so
    /// a separate checksum module could not be shared with it, and a simulator-side copy would be
    /// a second SHA-256 to keep tested and identical. An edge down to a dependency-free leaf
    /// inverts no layer; the scoped import keeps it to the hash.
    static let scopedImports: [String: [String: Set<String>]] = [
        "Experiments": ["PreloadKit": ["SHA256", "SHA256Hasher"]],
    ]

    /// The modules a test target tests, when not its name without "Tests".
    static let testSubjects: [String: Set<String>] = [
        // LogFit's tests run the `fit` command end to end, through the command line.
        "LogFitTests": ["LogFit", "PrestageCLI"],
        // Reads Package.swift and the sources as text.
        "ArchitectureTests": [],
    ]

    /// What every test target may import besides its subjects and what they may reach.
    static let testSupport: Set<String> = ["XCTest", "Foundation", "FoundationXML", "FoundationNetworking", "Glibc", "Darwin",
                                           "Dispatch", "ReportKitTesting"]

    /// The modules `target` may import: its rule, or for a test target its subjects, everything
    /// they may reach under these rules, and the test support. Nil: `target` has no rule.
    static func allowedImports(of target: String, in graph: PackageGraph) -> Set<String>? {
        guard graph.isTest(target) else { return mayImport[target] }
        let subjects = testSubjects[target] ?? [String(target.dropLast("Tests".count))]
        guard target.hasSuffix("Tests") || testSubjects[target] != nil, subjects.allSatisfy({ mayImport[$0] != nil }) else { return nil }
        var allowed = testSupport.union(subjects)
        var stack = Array(subjects)
        while let next = stack.popLast() {
            for module in mayImport[next] ?? [] where allowed.insert(module).inserted { stack.append(module) }
        }
        return allowed
    }

    /// Every way `graph` and `imports` break the rules, one line each (empty: none).
    static func violations(graph: PackageGraph, imports: [SourceImports]) -> [String] {
        var out: [String] = []
        let targets = Set(graph.dependencies.keys)
        for target in targets.sorted() {
            guard let allowed = allowedImports(of: target, in: graph) else {
                out.append("\(target): no layer rule (add it to LayerRules and Package.swift's header)")
                continue
            }
            for dependency in graph.dependencies[target, default: []].sorted() where !allowed.contains(dependency) {
                out.append("Package.swift: \(target) depends on \(dependency), which its layer rule forbids")
            }
        }
        for rule in mayImport.keys.sorted() where !targets.contains(rule) {
            out.append("LayerRules: a rule for \(rule), which is no target of Package.swift")
        }
        for i in imports where i.module != i.target {
            if let allowed = allowedImports(of: i.target, in: graph), !allowed.contains(i.module) {
                out.append("\(i.file): imports \(i.module), which the layer rule of \(i.target) forbids")
            }
            if let symbols = scopedImports[i.target]?[i.module], !(i.symbol.map(symbols.contains) ?? false) {
                out.append("\(i.file): \(i.target) may import \(i.module) only as scoped imports of \(symbols.sorted().joined(separator: ", "))")
            }
        }
        return out
    }

    /// A target's declared dependencies must be exactly the package modules its sources import:
    /// a dependency nothing imports is a false edge of the graph the rules are checked on, and an
    /// import that is not declared works only through some other target's dependency.
    static func declarationMismatches(graph: PackageGraph, imports: [SourceImports]) -> [String] {
        var out: [String] = []
        let targets = Set(graph.dependencies.keys)
        var imported: [String: Set<String>] = [:]
        var firstFile: [String: String] = [:]
        for i in imports where targets.contains(i.module) && i.module != i.target {
            imported[i.target, default: []].insert(i.module)
            firstFile["\(i.target) \(i.module)"] = firstFile["\(i.target) \(i.module)"] ?? i.file
        }
        for target in targets.sorted() where !graph.systemLibraries.contains(target) {
            let declared = graph.dependencies[target, default: []]
            let used = imported[target, default: []]
            for module in declared.subtracting(used).sorted() {
                out.append("Package.swift: \(target) declares a dependency on \(module), which none of its sources imports")
            }
            for module in used.subtracting(declared).sorted() {
                out.append("\(firstFile["\(target) \(module)"] ?? target): imports \(module), which is not a dependency of \(target) in Package.swift")
            }
        }
        return out
    }
}
