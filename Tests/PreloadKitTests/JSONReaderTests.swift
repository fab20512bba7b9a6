import XCTest
@testable import PreloadKit

final class JSONReaderTests: XCTestCase {
    func parse(_ s: String, _ limits: PayloadLimits = PayloadLimits()) throws -> PayloadValue {
        try PayloadValue.parseJSON(Fixtures.bytes(s), limits: limits)
    }

    func reason(_ s: String, _ limits: PayloadLimits = PayloadLimits()) -> PayloadRejection.Reason? {
        do { _ = try parse(s, limits); return nil } catch { return (error as? PayloadRejection)?.reason }
    }

    func testValues() throws {
        XCTAssertEqual(try parse(#" {"a":[1,-2,0,3.5e2,true,false,null,"x\n\u00e9\ud83d\ude00"]} "#),
                       .object([PayloadMember(key: "a", value: .array([.integer(1), .integer(-2), .integer(0), .number(350), .bool(true), .bool(false), .null, .string("x\né😀")]))]))
        XCTAssertEqual(try parse("9223372036854775807"), .integer(.max))
        XCTAssertEqual(try parse("-9223372036854775808"), .integer(.min))
        XCTAssertEqual(try parse(#""\/\\\"\b\f\r\t""#), .string("/\\\"\u{08}\u{0C}\r\t"))
        XCTAssertEqual(try parse("[]"), .array([]))
        XCTAssertEqual(try parse("{}"), .object([]))
    }

    func testStrictSyntax() {
        let bad: [(String, Int)] = [
            ("", 0), ("{", 1), (#"{"a":1,}"#, 7), ("[1,]", 3), ("[1 2]", 3), ("01", 1), ("1.", 2), (".5", 0), ("-", 1),
            ("1e", 2), ("+1", 0), ("tru", 0), ("nul", 0), ("NaN", 0), ("Infinity", 0), ("'a'", 0), ("[1]x", 3),
            ("{\"a\" 1}", 5), ("{a:1}", 1), ("\"\\x\"", 3), ("\"\\u12G4\"", 5), ("// c\n1", 0), ("\u{FEFF}1", 0),
            ("\"a\u{01}\"", 2), ("\"unterminated", 13),
        ]
        for (text, offset) in bad {
            guard case .invalidJSON(let at, _)? = reason(text) else {
                XCTFail("\(text.debugDescription) should be invalid JSON, got \(String(describing: reason(text)))")
                continue
            }
            XCTAssertEqual(at, offset, text.debugDescription)
        }
    }

    func testSurrogatesAndUTF8() {
        if case .invalidJSON? = reason(#""\ud83d""#) {} else { XCTFail("lone high surrogate") }
        if case .invalidJSON? = reason(#""\ude00""#) {} else { XCTFail("lone low surrogate") }
        if case .invalidJSON? = reason(#""\ud83d\u0041""#) {} else { XCTFail("high surrogate + non-low") }
        let invalid: [[UInt8]] = [[0x22, 0xC3, 0x28, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xFF, 0x22]]
        for bytes in invalid {
            XCTAssertThrowsError(try PayloadValue.parseJSON(bytes)) { e in
                XCTAssertEqual((e as? PayloadRejection)?.reason, .invalidUTF8(offset: 0), "\(bytes)")
            }
        }
    }

    func testNumbersOutOfRange() {
        XCTAssertEqual(reason("9223372036854775808"), .numberOutOfRange(value: "9223372036854775808", min: .min, max: .max))
        XCTAssertEqual(reason("-9223372036854775809"), .numberOutOfRange(value: "-9223372036854775809", min: .min, max: .max))
        XCTAssertEqual(reason("1e999"), .numberOutOfRange(value: "1e999", min: .min, max: .max))
        let long = String(repeating: "1", count: 33)
        XCTAssertEqual(reason(long), .numberOutOfRange(value: long, min: .min, max: .max))
    }

    func testLimits() {
        var limits = PayloadLimits()
        limits.documentBytesMax = 10
        XCTAssertEqual(reason(#"{"a":"123456"}"#, limits), .documentTooLarge(bytes: 14, max: 10))
        XCTAssertEqual(reason(String(repeating: "[", count: 17) + String(repeating: "]", count: 17)), .nestingTooDeep(max: 16))
        XCTAssertNoThrow(try parse(String(repeating: "[", count: 16) + String(repeating: "]", count: 16)))
        // A million brackets fail fast on size, never on the stack.
        XCTAssertEqual(reason(String(repeating: "[", count: 1_000_000)), .documentTooLarge(bytes: 1_000_000, max: 8_192))
        XCTAssertEqual(reason("\"" + String(repeating: "a", count: 2_049) + "\""), .stringTooLong(bytes: 2_049, max: 2_048))
        XCTAssertEqual(reason("[" + Array(repeating: "1", count: 129).joined(separator: ",") + "]"), .tooManyElements(count: 129, max: 128))
        limits = PayloadLimits()
        limits.valuesMax = 5
        XCTAssertEqual(reason("[1,2,3,4,5]", limits), .tooManyValues(max: 5))
        XCTAssertEqual(reason(#"{"a":1,"a":2}"#), .duplicateKey("a"))
    }
}

/// The duplicate-key check's cost, as a count of key comparisons (not wall time).
final class JSONReaderDuplicateKeyCostTests: XCTestCase {
    /// The widest limits `PayloadOptions.validate()` accepts.
    static var widest: PayloadLimits {
        var limits = PayloadLimits()
        limits.documentBytesMax = 1_048_576
        limits.depthMax = 64
        limits.stringBytesMax = 65_536
        limits.containerElementsMax = 4_096
        limits.valuesMax = 65_536
        return limits
    }

    /// At most ⌈log2 k⌉ + 1 comparisons per key of an object of k keys (a merge sort of the keys,
    /// then one pass over neighbours), so 15 objects of 4096 keys (about 600 KB) cost at most
    /// 15 · 4096 · 13 comparisons, where comparing every pair would cost 15 · 4096 · 4095 / 2.
    func testDuplicateKeyCheckAtTheWidestLimitsIsLinearithmic() throws {
        let keysPerObject = 4_096, objectCount = 15
        var text = "["
        for o in 0..<objectCount {
            text += o == 0 ? "{" : ",{"
            // Descending keys: the order that costs a naive sort the most.
            for k in 0..<keysPerObject {
                text += (k == 0 ? "" : ",") + "\"k\(String(1_000_000 - k))\":0"
            }
            text += "}"
        }
        text += "]"
        let bytes = Array(text.utf8)
        XCTAssertGreaterThan(bytes.count, 500_000)
        var reader = JSONReader(bytes: bytes, limits: Self.widest)
        let value = try reader.readValue(depth: 1)
        guard case .array(let objects) = value else { return XCTFail("expected an array") }
        XCTAssertEqual(objects.count, objectCount)
        let perKeyMax = 12 + 1  // ⌈log2 4096⌉ + 1
        XCTAssertLessThanOrEqual(reader.keyComparisonCount, objectCount * keysPerObject * perKeyMax)
    }

    /// A duplicate is found wherever it is: first and last key of a 4096-key object.
    func testDuplicateAmongManyKeysIsFound() {
        var text = "{\"dup\":0"
        for k in 1..<4_095 { text += ",\"k\(k)\":0" }
        text += ",\"dup\":1}"
        XCTAssertThrowsError(try PayloadValue.parseJSON(Array(text.utf8), limits: Self.widest)) { error in
            XCTAssertEqual((error as? PayloadRejection)?.reason, .duplicateKey("dup"))
        }
    }
}
