/// Timestamps of the supported logs as seconds since 1970-01-01T00:00:00Z.
///
/// - ISO 8601 / RFC 3339: `YYYY-MM-DD[T or space]HH:MM:SS[.fraction][Z | ±HH:MM | ±HHMM | ±HH]`;
///   without a zone the time is UTC (CloudFront and most CDN exports write UTC).
/// - Epoch numbers, the unit read from the magnitude: seconds below 10^11, milliseconds below
///   10^14, microseconds below 10^17, else nanoseconds (Cloudflare's `unixnano`) up to 10^20
///   (larger numbers, infinities and NaN are not timestamps).
package enum Timestamp {
    /// ISO 8601 or an epoch number.
    package static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        if b.count >= 10, b[4] == 45 { return iso8601(b) }
        return epoch(b)
    }

    /// An epoch number (unit from its magnitude, see the type's note).
    package static func epoch(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let v = FieldParsing.double(b), v >= 0, v < 1e20 else { return nil }
        if v < 1e11 { return v }
        if v < 1e14 { return v / 1e3 }
        if v < 1e17 { return v / 1e6 }
        return v / 1e9
    }

    /// ISO 8601 date-time with an optional zone (UTC when absent); nil when malformed or out of range.
    package static func iso8601(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        func digits(_ at: Int, _ n: Int) -> Int? {
            guard at + n <= b.count else { return nil }
            var v = 0
            for i in at..<(at + n) {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard b.count >= 19, let y = digits(0, 4), b[4] == 45, let mo = digits(5, 2), b[7] == 45, let d = digits(8, 2),
              b[10] == 84 || b[10] == 32 || b[10] == 116, let h = digits(11, 2), b[13] == 58, let mi = digits(14, 2),
              b[16] == 58, let s = digits(17, 2) else { return nil }
        guard (1...12).contains(mo), (1...daysInMonth(y, mo)).contains(d), h <= 23, mi <= 59, s <= 60 else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count, b[i] == 46 || b[i] == 44 {
            i += 1
            var scale = 0.1
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 { fraction += Double(b[i] - 48) * scale; scale /= 10; i += 1 }
            guard i > start else { return nil }
        }
        var offset = 0
        if i < b.count {
            if b[i] == 90 || b[i] == 122 {
                i += 1
            } else if b[i] == 43 || b[i] == 45 {
                let sign = b[i] == 45 ? -1 : 1
                guard let oh = digits(i + 1, 2), oh <= 23 else { return nil }
                i += 3
                var om = 0
                if i < b.count, b[i] == 58 { i += 1 }
                if i < b.count {
                    guard let m = digits(i, 2), m <= 59 else { return nil }
                    om = m
                    i += 2
                }
                offset = sign * (oh * 3600 + om * 60)
            }
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(y, mo, d)
        return Double(days * 86_400 + h * 3600 + mi * 60 + s - offset) + fraction
    }

    /// CloudFront's `date` (YYYY-MM-DD) and `time` (HH:MM:SS) fields, UTC.
    package static func dateAndTime(_ date: UnsafeBufferPointer<UInt8>, _ time: UnsafeBufferPointer<UInt8>) -> Double? {
        guard date.count == 10, time.count >= 8 else { return nil }
        var joined = [UInt8](date)
        joined.append(84)
        joined.append(contentsOf: time)
        return joined.withUnsafeBufferPointer { iso8601($0) }
    }

    static func daysInMonth(_ y: Int, _ m: Int) -> Int {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
