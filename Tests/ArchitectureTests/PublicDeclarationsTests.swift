import Foundation
import XCTest

/// Only the modules an app ships (the library products and what they depend on: PreloadKit and
/// PreloadKitFoundation) have public API. Every other module is used only inside this package, so
/// its declarations are `package` (or narrower): a `public` there looks like shipped API and is not.
final class PublicDeclarationsTests: XCTestCase {
    func testNoPublicDeclarationsOutsideShippedModules() throws {
        let root = LayerRulesTests.packageRoot
        let graph = try PackageGraph.load(root)
        let shipped = graph.shippedModules
        XCTAssertEqual(shipped, ["PreloadKit", "PreloadKitFoundation"])
        var total = 0
        var perModule: [String: Int] = [:]
        for target in graph.dependencies.keys.sorted() where !shipped.contains(target) {
            for file in try SourceFiles.swiftFiles(of: target, in: graph, root: root) {
                let n = PublicDeclarations.count(in: try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8))
                total += n
                perModule[target, default: 0] += n
            }
        }
        let listing = perModule.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        XCTAssertEqual(total, 0, "public declarations outside the shipped modules (\(listing)): declare them `package`")
    }

    func testCountSeesModifiersInCodeOnly() {
        let text = """
            /// A public type.
            public struct A {
                @inlinable public init() {}
                public private(set) var x = 0
                let cacheControl = "public, max-age=60"
                var p: Access { .public }
            }
            public extension A {}
            @_spi(Benchmark)
            public struct B { public init() {} }
            @_spi(Benchmark) @inlinable public func f() {}
            """
        XCTAssertEqual(PublicDeclarations.count(in: text), 5)
    }
}

/// Counting `public` modifiers in Swift source.
enum PublicDeclarations {
    /// Modifiers that may stand between a declaration's attributes and its `public`.
    static let modifiers: Set<String> = ["final", "override", "nonisolated", "convenience", "required", "static", "class", "mutating",
                                         "nonmutating", "indirect", "lazy", "weak", "unowned", "dynamic", "optional", "prefix",
                                         "postfix", "infix", "distributed"]

    /// The `public` modifiers in the code of `text` (not in comments or strings, not `.public`),
    /// except on `@_spi` declarations: Swift allows SPI only on public declarations, and they are
    /// no API (they are seen only through `@_spi(Name) import`).
    static func count(in text: String) -> Int {
        let code = Array(SwiftCode.blanked(text).unicodeScalars)
        let word = Array("public".unicodeScalars)
        var n = 0
        var i = 0
        while i + word.count <= code.count {
            if code[i] == word[0], Array(code[i..<i + word.count]) == word,
               i == 0 || !(isIdentifier(code[i - 1]) || code[i - 1] == "." || code[i - 1] == "`" || code[i - 1] == "#" || code[i - 1] == "@"),
               i + word.count == code.count || !(isIdentifier(code[i + word.count]) || code[i + word.count] == "`") {
                if !attributes(before: i, in: code).contains("_spi") { n += 1 }
                i += word.count
            } else {
                i += 1
            }
        }
        return n
    }

    static func isIdentifier(_ s: Unicode.Scalar) -> Bool { s == "_" || s.properties.isAlphabetic || ("0"..."9").contains(s) }

    /// The attribute names (`_spi`, `inlinable`, …) written before the modifier at `position`,
    /// across other modifiers and line breaks.
    static func attributes(before position: Int, in code: [Unicode.Scalar]) -> [String] {
        var names: [String] = []
        var i = position
        while true {
            var j = i - 1
            while j >= 0 && code[j].properties.isWhitespace { j -= 1 }
            guard j >= 0 else { return names }
            if code[j] == ")" {
                var depth = 0
                while j >= 0 {
                    if code[j] == ")" { depth += 1 } else if code[j] == "(" { depth -= 1; if depth == 0 { break } }
                    j -= 1
                }
                j -= 1
                while j >= 0 && code[j].properties.isWhitespace { j -= 1 }
            }
            let end = j + 1
            while j >= 0 && isIdentifier(code[j]) { j -= 1 }
            guard end > j + 1 else { return names }
            let name = String(String.UnicodeScalarView(code[(j + 1)..<end]))
            if j >= 0 && code[j] == "@" {
                names.append(name)
                i = j
            } else if modifiers.contains(name) {
                i = j + 1
            } else {
                return names
            }
        }
    }
}
