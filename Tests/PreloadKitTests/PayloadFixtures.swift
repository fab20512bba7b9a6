/// Payload fixtures. The inline one is the article's production example (its truncated signature
/// replaced); the others follow the article's silent-push and manifest-by-reference patterns and
/// the rich-push `au`/`at` keys. Signatures were computed independently with Python's `hmac`
/// from the canonical form as documented on `PayloadParser` (key `Fixtures.signingKey`):
///
///     hmac.new(key, "".join(l + "\n" for l in lines).encode(), hashlib.sha256).hexdigest()
enum Payloads {
    static let inlineSignature = "v1=c26d359e0ab3549cc309434f7589e2cd5c8364f95511353f2571fd038320c691"
    static let referenceSignature = "v1=767b148e85bb020a6adc164d2cca55f264a4922e3372d2ad88e4c253ffa987d3"
    static let referencedDocumentSignature = "v1=f452add09f492b36bc6d7ec05963d07dc3d1db372afaaa7f84fec52020496b3c"
    static let silentSignature = "v1=e597c5e1163bbc12ab4e4a1c3ef0b9e071a40116526ced3e419502c0d4668e51"
    static let richSignature = "v1=46369ede24af6b43f620c1255dba000b99ec27c53c8cea14d6754445c73083ea"

    static func inline(signature: String = inlineSignature) -> String {
        """
        {
          "aps": {
            "alert": {
              "title": "Your weekly mix is ready",
              "body": "Tap to play 12 new tracks"
            },
            "mutable-content": 1,
            "category": "PRELOAD_MIX"
          },
          "cdn_preload": {
            "manifest_id": "mix_wk42_7f3a9",
            "assets": [
              {
                "url": "https://cdn.example.com/mix/wk42/cover_800x800.webp",
                "type": "image",
                "priority": "critical",
                "bytes": 48200
              },
              {
                "url": "https://cdn.example.com/mix/wk42/preview.m3u8",
                "type": "hls",
                "priority": "critical",
                "bytes": 320000
              }
            ],
            "ttl": 14400,
            "signature": "\(signature)"
          }
        }
        """
    }

    static let reference = """
        {"aps":{"alert":{"title":"New mix","body":"Tap to play"},"mutable-content":1},
         "cdn_preload":{"manifest_id":"mix_wk43_ab12",
                        "manifest_url":"https://cdn.example.com/preload/manifests/mix_wk43.json",
                        "signature":"\(referenceSignature)"}}
        """

    static let referencedDocument = """
        {"manifest_id":"mix_wk43_ab12","ttl":18000,
         "assets":[
           {"url":"https://cdn.example.com/mix/wk43/cover.jpg","type":"image","priority":"critical","bytes":52000,
            "variants":{"3g":{"url":"https://cdn.example.com/mix/wk43/cover_400.jpg","bytes":18000},
                        "wifi":{"url":"https://cdn.example.com/mix/wk43/cover_1600.jpg","bytes":210000}}},
           {"url":"https://cdn.example.com/mix/wk43/tracks.json","type":"json","priority":"critical","bytes":4000},
           {"url":"https://cdn.example.com/mix/wk43/bg.mp4","type":"video","priority":"normal","bytes":2400000}],
         "signature":"\(referencedDocumentSignature)"}
        """

    static let silent = """
        {"aps":{"content-available":1},
         "pre_stage_url":"https://cdn.example.com/push/hero_a2_800w.webp?v=8f3a",
         "pre_stage_id":"hero_a2","version":"8f3a","signature":"\(silentSignature)"}
        """

    static let rich = """
        {"aps":{"alert":{"title":"Flash sale","body":"50% off for 2 hours"},"mutable-content":1},
         "au":"https://cdn.example.com/rich/sale_banner.jpg","at":"jpg","signature":"\(richSignature)"}
        """
}
