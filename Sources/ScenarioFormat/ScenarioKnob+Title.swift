/// Knob names for people: the field a plan or sweep varies, as docs/scenario-format.md describes it
/// ("send rate" for `campaigns[0].sendRatePerMinute`), shown with its path beside it.
extension ScenarioFieldUnit {
    /// Titles of the fields plans usually vary, by their last key.
    static let knobTitles: [(key: String, title: String)] = [
        ("sendRatePerMinute", "send rate"), ("aheadSeconds", "warm-up lead"), ("devices", "devices"),
        ("workers", "origin workers"), ("queueMax", "origin queue"), ("providerQuotaPerMinute", "provider quota"),
        ("capacityBytes", "cache capacity"), ("sendStartSeconds", "send start"), ("bytes", "asset size"),
    ]

    /// The title of the field at `path`: from `knobTitles`, else its last key in words without its
    /// unit suffix ("campaigns[0].jitterSeconds" → "jitter").
    package static func title(path: String) -> String {
        let keys = path.split(separator: ".").map { String($0.prefix { $0 != "[" }) }
        let last = keys.last ?? path
        if let known = knobTitles.first(where: { $0.key == last }) { return known.title }
        var name = last
        for suffix in ["BitsPerSecond", "PerMinute", "PerHour", "Seconds", "Bytes"] where name.hasSuffix(suffix) && name.count > suffix.count {
            name = String(name.dropLast(suffix.count))
            break
        }
        return name.map { $0.isUppercase ? " " + $0.lowercased() : String($0) }.joined()
    }
}
