import Foundation

/// The targets and library products declared in Package.swift: each target's direct dependencies,
/// its kind and its source directory.
struct PackageGraph {
    var dependencies: [String: Set<String>]
    var tests: Set<String>
    /// Targets whose sources are somewhere else than Sources/<name> or (tests) Tests/<name>.
    var paths: [String: String] = [:]
    /// System library shims (a module map, no Swift sources).
    var systemLibraries: Set<String> = []
    /// The targets named by `.library` products: what an app links.
    var productTargets: Set<String> = []

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

    /// The modules an app ships: the library products' targets and everything they depend on.
    var shippedModules: Set<String> {
        productTargets.reduce(into: productTargets) { $0.formUnion(reachable(from: $1)) }
    }

    /// The directory, relative to the package root, holding `target`'s sources.
    func sourceDirectory(of target: String) -> String {
        paths[target] ?? (isTest(target) ? "Tests/\(target)" : "Sources/\(target)")
    }

    static func load(_ root: URL) throws -> PackageGraph {
        parse(try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8))
    }

    /// Reads `.target(name: "X", dependencies: [...], path: "…")` (and the other target kinds) and
    /// `.library(name: …, targets: [...])`; a dependency given as `.product(name: "Y", …)` or
    /// `.target(name: "Y", …)` counts as Y. Comments are ignored.
    static func parse(_ manifest: String) -> PackageGraph {
        let code = manifest.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }
            .joined(separator: "\n")
        let targetPattern = #/\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)"/#
        let dependenciesPattern = #/^\s*,\s*dependencies:\s*\[([^\]]*)\]/#
        let pathPattern = #/path:\s*"([^"]+)"/#
        let productPattern = #/\.library\(\s*name:\s*"[^"]+"\s*,\s*(?:type:\s*\.[a-z]+\s*,\s*)?targets:\s*\[([^\]]*)\]/#
        let namePattern = #/"([^"]+)"/#
        var graph = PackageGraph(dependencies: [:], tests: [])
        let matches = code.matches(of: targetPattern)
        for (index, match) in matches.enumerated() {
            let name = String(match.output.2)
            // This target's own text: up to the next target.
            let end = index + 1 < matches.count ? matches[index + 1].range.lowerBound : code.endIndex
            let rest = code[match.range.upperBound..<end]
            var deps: Set<String> = []
            if let list = rest.firstMatch(of: dependenciesPattern)?.output.1 {
                // In `.product(name: "Y", package: "p")` only the first string is the module.
                for item in list.split(separator: ",", omittingEmptySubsequences: true) {
                    let text = item.trimmingCharacters(in: .whitespacesAndNewlines)
                    guard !text.hasPrefix("package:"), !text.hasPrefix("condition:"), let m = text.firstMatch(of: namePattern) else { continue }
                    deps.insert(String(m.output.1))
                }
            }
            graph.dependencies[name] = deps
            if let path = rest.firstMatch(of: pathPattern)?.output.1 { graph.paths[name] = String(path) }
            switch match.output.1 {
            case "testTarget": graph.tests.insert(name)
            case "systemLibrary": graph.systemLibraries.insert(name)
            default: break
            }
        }
        for product in code.matches(of: productPattern) {
            for m in product.output.1.matches(of: namePattern) { graph.productTargets.insert(String(m.output.1)) }
        }
        return graph
    }
}
