import Foundation
@testable import ScenarioFormat

// Small Codable types that mimic how scenario modules define and validate their sections:
// required and defaulted fields, nested optional sections, arrays, and validation in init(from:)
// throwing DecodingError.dataCorruptedError with "expected …, found …" descriptions.

struct Asset: Decodable, Equatable {
    let url: String
    let bytes: UInt64
    let priority: Int

    enum CodingKeys: String, CodingKey { case url, bytes, priority }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        url = try c.decode(String.self, forKey: .url)
        bytes = try c.decode(UInt64.self, forKey: .bytes)
        priority = try c.decodeIfPresent(Int.self, forKey: .priority) ?? 0
        guard priority >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: .priority, in: c, debugDescription: "expected an integer ≥ 0, found \(priority)")
        }
    }
}

struct RetryPolicy: Decodable, Equatable {
    let maxAttempts: Int
    let backoffSeconds: Double

    enum CodingKeys: String, CodingKey { case maxAttempts, backoffSeconds }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        maxAttempts = try c.decode(Int.self, forKey: .maxAttempts)
        backoffSeconds = try c.decodeIfPresent(Double.self, forKey: .backoffSeconds) ?? 1
        guard maxAttempts >= 1 else {
            throw DecodingError.dataCorruptedError(forKey: .maxAttempts, in: c, debugDescription: "expected an integer ≥ 1, found \(maxAttempts)")
        }
    }
}

struct Campaign: Decodable, Equatable {
    let name: String
    let warmAheadSeconds: Double
    let ttlSeconds: Int
    let retry: RetryPolicy?
    let assets: [Asset]

    enum CodingKeys: String, CodingKey { case name, warmAheadSeconds, ttlSeconds, retry, assets }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        warmAheadSeconds = try c.decode(Double.self, forKey: .warmAheadSeconds)
        guard warmAheadSeconds >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: .warmAheadSeconds, in: c,
                                                   debugDescription: "expected a number ≥ 0, found \(warmAheadSeconds)")
        }
        ttlSeconds = try c.decodeIfPresent(Int.self, forKey: .ttlSeconds) ?? 3600
        retry = try c.decodeIfPresent(RetryPolicy.self, forKey: .retry)
        assets = try c.decode([Asset].self, forKey: .assets)
    }
}

struct NetworkSection: Decodable, Equatable {
    let rttMilliseconds: Double
    let lossRate: Double

    static let standard = NetworkSection(rttMilliseconds: 50, lossRate: 0)

    init(rttMilliseconds: Double, lossRate: Double) {
        self.rttMilliseconds = rttMilliseconds
        self.lossRate = lossRate
    }

    enum CodingKeys: String, CodingKey { case rttMilliseconds, lossRate }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        rttMilliseconds = try c.decode(Double.self, forKey: .rttMilliseconds)
        lossRate = try c.decodeIfPresent(Double.self, forKey: .lossRate) ?? 0
        guard (0...1).contains(lossRate) else {
            // No "found" in the description: the decoder appends it.
            throw DecodingError.dataCorruptedError(forKey: .lossRate, in: c, debugDescription: "expected a probability in [0, 1]")
        }
    }
}

/// Root: defaulted sections first, the required campaign last (the decoder can only continue
/// past failures of optional/defaulted fields).
struct Scenario: Decodable, Equatable {
    let replications: Int
    let seed: UInt64?
    let network: NetworkSection
    let campaign: Campaign

    enum CodingKeys: String, CodingKey { case replications, seed, network, campaign }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        replications = try c.decodeIfPresent(Int.self, forKey: .replications) ?? 10
        seed = try c.decodeIfPresent(UInt64.self, forKey: .seed)
        network = try c.decodeIfPresent(NetworkSection.self, forKey: .network) ?? .standard
        campaign = try c.decode(Campaign.self, forKey: .campaign)
    }
}

/// Decodes `json` as `T` and returns the diagnostics' descriptions (empty on success).
func problems<T: Decodable>(_ type: T.Type, _ json: String, overrides: [JSONOverride] = []) -> [String] {
    switch StrictJSONDecoder().decode(T.self, from: Data(json.utf8), overrides: overrides) {
    case .success: return []
    case let .failure(errors): return errors.diagnostics.map(\.description)
    }
}
