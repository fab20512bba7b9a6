import Foundation
import XCTest

/// Figures the documentation quotes from the committed baselines must be the baselines' figures:
/// on every line of README.md and docs/*.md that names a `results/baseline/NAME.json` file, each
/// number written with a decimal point or thousands separators must be a value of that file
/// (a numeric leaf, or for instructions.json the instructions per event), to the precision quoted.
final class BaselineFiguresDocTests: XCTestCase {
    static let root = TestEnvironment.repositoryScenarios.deletingLastPathComponent()

    /// Every numeric leaf of a JSON value.
    static func numbers(_ any: Any) -> [Double] {
        switch any {
        case let n as NSNumber: return [n.doubleValue]
        case let a as [Any]: return a.flatMap(numbers)
        case let d as [String: Any]: return d.values.flatMap(numbers)
        default: return []
        }
    }

    /// The values a doc line may quote from `results/baseline/NAME.json`.
    static func quotable(_ name: String) throws -> [Double] {
        let url = root.appendingPathComponent("results/baseline/\(name).json")
        let json = try JSONSerialization.jsonObject(with: try Data(contentsOf: url))
        var values = numbers(json)
        if let d = json as? [String: Any], let i = (d["instructions"] as? NSNumber)?.doubleValue, let e = (d["events"] as? NSNumber)?.doubleValue, e > 0 {
            values.append(i / e)
        }
        return values
    }

    /// "516,849,559" → (516849559, 0 decimals); "2.942" → (2.942, 3 decimals).
    static func quotedNumbers(in line: String) -> [(text: String, value: Double, decimals: Int)] {
        let regex = try! NSRegularExpression(pattern: #"(?<![\w.,])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+)(?![\w,]*\d)"#)
        return regex.matches(in: line, range: NSRange(line.startIndex..., in: line)).compactMap { m in
            guard let r = Range(m.range(at: 1), in: line) else { return nil }
            let text = String(line[r])
            let plain = text.replacingOccurrences(of: ",", with: "")
            let decimals = plain.split(separator: ".").count == 2 ? plain.split(separator: ".")[1].count : 0
            return Double(plain).map { (text, $0, decimals) }
        }
    }

    func testQuotedBaselineFiguresMatchTheCommittedBaselines() throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 } + ["README.md"]
        let fileRef = try NSRegularExpression(pattern: #"results/baseline/([A-Za-z0-9_-]+)\.json"#)
        var checked = 0
        for doc in docs.sorted() {
            let text = try String(contentsOf: Self.root.appendingPathComponent(doc), encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                let names = fileRef.matches(in: line, range: NSRange(line.startIndex..., in: line)).compactMap { Range($0.range(at: 1), in: line).map { String(line[$0]) } }
                guard !names.isEmpty else { continue }
                let values = try Set(names).flatMap { try Self.quotable($0) }
                for q in Self.quotedNumbers(in: line) {
                    let scale = pow(10, Double(q.decimals))
                    XCTAssertTrue(values.contains { ($0 * scale).rounded() == (q.value * scale).rounded() },
                                  "\(doc):\(n + 1): \(q.text) is not a value of results/baseline/\(names.joined(separator: ", ")).json: \(line)")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 0, "README or docs should quote the instruction baseline (or this test is moot)")
    }

    func testQuotedNumberScanner() {
        XCTAssertEqual(Self.quotedNumbers(in: "executes 516,849,559 instructions, 4,260 per event, ratio 2.942, 3 scenarios, +3 %").map(\.text),
                       ["516,849,559", "4,260", "2.942"])
    }
}
