/// Self instruction counts per function from a callgrind output file (format version 1, one
/// event type), grouped by Swift module for the gate's report.
package struct CallgrindProfile: Sendable, Equatable {
    /// One function's self cost.
    package struct Function: Sendable, Equatable {
        /// The symbol as callgrind names it (Swift symbols stay mangled: `$s9PushModel…`).
        package let name: String
        /// `module(symbol:object:)` of it.
        package let module: String
        /// Instructions executed in the function itself (callees excluded).
        package let instructions: UInt64
    }

    /// Total instructions collected (the file's `totals:`, else the sum of self costs).
    package let total: UInt64
    /// Every function with a non-zero self cost, most expensive first (ties by name).
    package let functions: [Function]

    /// Self cost per module, most expensive first (ties by name).
    package var modules: [(module: String, instructions: UInt64)] {
        var sums: [String: UInt64] = [:]
        for f in functions { sums[f.module, default: 0] &+= f.instructions }
        return sums.map { (module: $0.key, instructions: $0.value) }
            .sorted { $0.instructions != $1.instructions ? $0.instructions > $1.instructions : $0.module < $1.module }
    }

    /// Parses callgrind's output. Cost lines count towards the current `fn=` except the line right
    /// after `calls=` (that is the callee's inclusive cost). Name compression (`fn=(12) name`,
    /// then `fn=(12)`) is resolved.
    /// - Throws: `CallgrindProfile.FormatError` when the text is not a callgrind profile.
    package static func parse(_ text: String) throws(FormatError) -> CallgrindProfile {
        var names: [String: [String: String]] = [:]  // per key kind ("fn", "ob"): id → name
        func resolve(_ kind: String, _ value: Substring) -> String {
            let v = value.trimmingPrefixSpaces()
            guard v.hasPrefix("("), let close = v.firstIndex(of: ")") else { return String(v) }
            let id = String(v[v.index(after: v.startIndex)..<close])
            let rest = v[v.index(after: close)...].trimmingPrefixSpaces()
            if !rest.isEmpty { names[kind, default: [:]][id] = String(rest); return String(rest) }
            return names[kind]?[id] ?? "(\(id))"
        }
        var costs: [String: (object: String, instructions: UInt64)] = [:]
        var object = "", function = "", skipNextCost = false, total: UInt64?, sawEvents = false
        for raw in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            guard let first = line.first else { continue }
            if first.isNumber || first == "+" || first == "-" || first == "*" {
                if skipNextCost { skipNextCost = false; continue }
                let fields = line.split(separator: " ")
                guard fields.count >= 2, let cost = UInt64(fields[fields.count - 1]) else { continue }
                let key = object + "\u{0}" + function
                costs[key, default: (object, 0)].instructions &+= cost
                continue
            }
            guard let eq = line.firstIndex(of: "=") ?? line.firstIndex(of: ":") else { continue }
            let key = String(line[..<eq]), value = line[line.index(after: eq)...]
            switch key {
            case "ob": object = resolve("ob", value)
            case "fn": function = resolve("fn", value)
            case "cob": _ = resolve("ob", value)
            case "cfn": _ = resolve("fn", value)
            case "fl", "fi", "fe", "cfi", "cfl": _ = resolve("fl", value)
            case "calls": skipNextCost = true
            case "events":
                sawEvents = true
                let kinds = value.split(separator: " ")
                guard kinds.count == 1 else { throw FormatError(message: "expected one event type (Ir), found \(kinds.joined(separator: " "))") }
            case "totals", "summary": total = UInt64(value.trimmingPrefixSpaces())
            default: continue
            }
        }
        guard sawEvents else { throw FormatError(message: "expected a callgrind profile (an `events:` line), found none") }
        let functions = costs.compactMap { key, value -> Function? in
            guard value.instructions > 0 else { return nil }
            let name = String(key[key.index(after: key.firstIndex(of: "\u{0}")!)...])
            return Function(name: name, module: module(symbol: name, object: value.object), instructions: value.instructions)
        }.sorted { $0.instructions != $1.instructions ? $0.instructions > $1.instructions : $0.name < $1.name }
        return CallgrindProfile(total: total ?? functions.reduce(0) { $0 &+ $1.instructions }, functions: functions)
    }

    /// The Swift module a symbol belongs to: `$s<length><Module>…` → Module; `$sS…`/`$ss…`
    /// (standard-library types, including their specialisations for this program's types) →
    /// "Swift"; anything else (C functions, runtime, libc, GSL) → "[object file name]".
    package static func module(symbol: String, object: String) -> String {
        for prefix in ["$s", "_$s"] where symbol.hasPrefix(prefix) {
            let rest = symbol.dropFirst(prefix.count)
            if let c = rest.first, c == "S" || c == "s" { return "Swift" }
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            if let n = Int(digits), n > 0 {
                let name = rest.dropFirst(digits.count).prefix(n)
                if name.count == n { return String(name) }
            }
        }
        let file = object.split(separator: "/").last.map(String.init) ?? object
        return "[" + (file.isEmpty ? "?" : file) + "]"
    }

    /// A file that is not a usable callgrind profile.
    package struct FormatError: Error, Sendable, Equatable, CustomStringConvertible {
        package let message: String
        package var description: String { message }
    }
}

extension Substring {
    fileprivate func trimmingPrefixSpaces() -> Substring { drop { $0 == " " } }
}
