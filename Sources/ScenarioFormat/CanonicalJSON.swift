import Foundation

/// JSON the way results are written: sorted keys, pretty-printed, "/" unescaped, a final newline.
package enum CanonicalJSON {
    package static func encode<T: Encodable>(_ value: T, pretty: Bool = true) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        if pretty { data.append(0x0A) }
        return data
    }
}
