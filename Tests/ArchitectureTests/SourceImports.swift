import Foundation

/// One `import` line of a target's Swift sources (comments and string literals do not count).
struct SourceImports: Equatable {
    let target: String
    let file: String
    let module: String
    /// The declaration a scoped import names (`import struct M.Name`), nil for a whole module.
    var symbol: String? = nil

    /// Every import of every target of `graph` that has Swift sources.
    static func load(_ root: URL, _ graph: PackageGraph) throws -> [SourceImports] {
        var out: [SourceImports] = []
        for target in graph.dependencies.keys.sorted() {
            for file in try SourceFiles.swiftFiles(of: target, in: graph, root: root) {
                out += lines(in: try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8))
                    .map { SourceImports(target: target, file: file, module: $0.module, symbol: $0.symbol) }
            }
        }
        return out
    }

    /// The modules named by import lines (`import X`, `@testable import X`, `@_spi(S) import X`,
    /// `import struct X.Y`), in order.
    static func modules(in text: String) -> [String] { lines(in: text).map(\.module) }

    /// The import lines of `text`: module and, for a scoped import, the declaration.
    static func lines(in text: String) -> [(module: String, symbol: String?)] {
        let pattern = #/^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?/#
        return SwiftCode.blanked(text).split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
            line.firstMatch(of: pattern).map { (String($0.output.1), $0.output.2.map(String.init)) }
        }
    }
}

/// The Swift files of a target.
enum SourceFiles {
    /// Paths relative to the package root, sorted.
    static func swiftFiles(of target: String, in graph: PackageGraph, root: URL) throws -> [String] {
        let directory = graph.sourceDirectory(of: target)
        let url = root.appendingPathComponent(directory, isDirectory: true)
        guard FileManager.default.fileExists(atPath: url.path), let walker = FileManager.default.enumerator(atPath: url.path) else { return [] }
        var files: [String] = []
        for case let relative as String in walker where relative.hasSuffix(".swift") { files.append("\(directory)/\(relative)") }
        return files.sorted()
    }
}
