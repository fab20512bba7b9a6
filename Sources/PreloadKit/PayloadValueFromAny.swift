extension PayloadValue {
    /// Converts an OS dictionary value (`UNNotificationContent.userInfo`, an FCM data map decoded
    /// to `[String: Any]`) into a `PayloadValue`, enforcing the same limits as the JSON reader
    /// (depth, string length, element counts, total values).
    ///
    /// Accepted leaves: `String`, `Bool`, the standard integer types (must fit in `Int64`),
    /// `Double`/`Float` (must be finite), and `NSNull` (recognised by type name, so this file
    /// needs no Foundation). Containers: `[Any]`, `[String: Any]`, `[AnyHashable: Any]` with
    /// `String` keys; members are sorted by key so the result is deterministic.
    ///
    /// Note for Darwin: a bridged `NSNumber` holding a boolean converts as `.integer(0/1)`,
    /// because integer bridging is tried first; the payload reader accepts 0/1 where it expects a
    /// flag for that reason.
    /// - Throws: `PayloadRejection` naming the path of the offending value.
    public init(any value: Any, limits: PayloadLimits = PayloadLimits()) throws(PayloadRejection) {
        var valueCount = 0
        self = try PayloadValue.convert(value, path: "$", depth: 1, limits: limits, valueCount: &valueCount)
    }

    static func convert(_ value: Any, path: String, depth: Int, limits: PayloadLimits, valueCount: inout Int) throws(PayloadRejection) -> PayloadValue {
        valueCount += 1
        if valueCount > limits.valuesMax {
            throw PayloadRejection(path: path, reason: .tooManyValues(max: limits.valuesMax))
        }
        if let s = value as? String {
            let count = s.utf8.count
            if count > limits.stringBytesMax {
                throw PayloadRejection(path: path, reason: .stringTooLong(bytes: count, max: limits.stringBytesMax))
            }
            return .string(s)
        }
        if let i = value as? Int { return .integer(Int64(i)) }
        if let i = value as? Int64 { return .integer(i) }
        if let i = value as? Int32 { return .integer(Int64(i)) }
        if let i = value as? UInt32 { return .integer(Int64(i)) }
        if let u = value as? UInt64 {
            guard u <= UInt64(Int64.max) else {
                throw PayloadRejection(path: path, reason: .numberOutOfRange(value: "\(u)", min: .min, max: .max))
            }
            return .integer(Int64(u))
        }
        if let u = value as? UInt {
            guard UInt64(u) <= UInt64(Int64.max) else {
                throw PayloadRejection(path: path, reason: .numberOutOfRange(value: "\(u)", min: .min, max: .max))
            }
            return .integer(Int64(u))
        }
        if let d = value as? Double {
            guard d.isFinite else {
                throw PayloadRejection(path: path, reason: .numberOutOfRange(value: "\(d)", min: .min, max: .max))
            }
            return .number(d)
        }
        if let f = value as? Float {
            guard f.isFinite else {
                throw PayloadRejection(path: path, reason: .numberOutOfRange(value: "\(f)", min: .min, max: .max))
            }
            return .number(Double(f))
        }
        if let b = value as? Bool { return .bool(b) }
        if let array = value as? [Any] {
            try checkContainer(count: array.count, path: path, depth: depth, limits: limits)
            var out: [PayloadValue] = []
            out.reserveCapacity(array.count)
            for (i, element) in array.enumerated() {
                out.append(try convert(element, path: "\(path)[\(i)]", depth: depth + 1, limits: limits, valueCount: &valueCount))
            }
            return .array(out)
        }
        if let dict = value as? [String: Any] {
            try checkContainer(count: dict.count, path: path, depth: depth, limits: limits)
            return try convertMembers(dict.map { ($0.key, $0.value) }, path: path, depth: depth, limits: limits, valueCount: &valueCount)
        }
        if let dict = value as? [AnyHashable: Any] {
            try checkContainer(count: dict.count, path: path, depth: depth, limits: limits)
            var pairs: [(String, Any)] = []
            pairs.reserveCapacity(dict.count)
            for (key, element) in dict {
                guard let name = key.base as? String else {
                    throw PayloadRejection(path: path, reason: .wrongType(expected: "string keys", found: "\(type(of: key.base)) key"))
                }
                pairs.append((name, element))
            }
            return try convertMembers(pairs, path: path, depth: depth, limits: limits, valueCount: &valueCount)
        }
        let typeName = "\(type(of: value))"
        if typeName == "NSNull" { return .null }
        throw PayloadRejection(path: path, reason: .unsupportedType(typeName))
    }

    static func checkContainer(count: Int, path: String, depth: Int, limits: PayloadLimits) throws(PayloadRejection) {
        if depth > limits.depthMax {
            throw PayloadRejection(path: path, reason: .nestingTooDeep(max: limits.depthMax))
        }
        if count > limits.containerElementsMax {
            throw PayloadRejection(path: path, reason: .tooManyElements(count: count, max: limits.containerElementsMax))
        }
    }

    static func convertMembers(_ pairs: [(String, Any)], path: String, depth: Int, limits: PayloadLimits, valueCount: inout Int) throws(PayloadRejection) -> PayloadValue {
        let sorted = pairs.sorted { $0.0 < $1.0 }
        var members: [PayloadMember] = []
        members.reserveCapacity(sorted.count)
        for (key, element) in sorted {
            if key.utf8.count > limits.stringBytesMax {
                throw PayloadRejection(path: path, reason: .stringTooLong(bytes: key.utf8.count, max: limits.stringBytesMax))
            }
            members.append(PayloadMember(key: key, value: try convert(element, path: "\(path).\(PayloadRejection.clip(key))", depth: depth + 1, limits: limits, valueCount: &valueCount)))
        }
        return .object(members)
    }
}
