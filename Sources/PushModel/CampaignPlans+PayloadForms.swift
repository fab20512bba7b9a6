import InfraModel
import PreloadKit

// The campaign plans' side of the four payload forms: what each form allows, each push's encoded
// size against the providers' limit, and the referenced manifest as a CDN object.
extension CampaignPlans {
    /// PreloadKit's bound on a referenced manifest (`PreloadPolicy.manifestBytesMax`, which the
    /// scenario format does not change): the most a manifest by reference may weigh.
    static let manifestBytesMax = PreloadPolicy(manifestOptions: PayloadOptions(urlPolicy: URLPolicy(allowlist: []), signingKey: [])).manifestBytesMax
    /// PreloadKit's attachment limits (`PreloadPolicy.attachmentLimits`, not changed by scenarios).
    static let attachmentLimits = AttachmentLimits()

    /// The constraints `campaign.payloadForm` implies (see `PayloadFormConfig`).
    /// - Throws: `PushModelError` naming the field, the value and what the form needs.
    static func checkPayloadForm(_ campaign: CampaignConfig, path: String) throws {
        let form = campaign.payloadForm
        let name = "payloadForm \"\(form.rawValue)\""
        let carousel = campaign.carouselIntervalSeconds != nil
        switch form {
        case .inline:
            return
        case .manifestReference:
            if carousel {
                throw PushModelError(path: "\(path).carouselIntervalSeconds", reason: "\(name) is not sent as a carousel: a carousel's pushes "
                                     + "carry one asset each, and a manifest for one asset costs a round trip for nothing; expected no "
                                     + "carouselIntervalSeconds, or payloadForm \"inline\" or \"silentURL\"")
            }
        case .silentURL, .richAttachment:
            if campaign.assets.count > 1 && (form == .richAttachment || !carousel) {
                let fix = form == .silentURL ? "send them one push per asset (carouselIntervalSeconds)" : "one asset"
                throw PushModelError(path: "\(path).assets", reason: "\(name) carries one asset, found \(campaign.assets.count); expected \(fix), "
                                     + "or payloadForm \"inline\" or \"manifestReference\"")
            }
            for (a, asset) in campaign.assets.enumerated() where !asset.variants.isEmpty {
                throw PushModelError(path: "\(path).assets[\(a)].variants", reason: "\(name) carries one URL per asset, found "
                                     + "\(asset.variants.count) variants; expected none, or payloadForm \"inline\" or \"manifestReference\"")
            }
            if form == .silentURL {
                if campaign.iosPush != .silent && !carousel {
                    throw PushModelError(path: "\(path).iosPush", reason: "\(name) is a silent push (content-available), found iosPush "
                                         + "\"\(campaign.iosPush.rawValue)\"; expected \"silent\"")
                }
                return
            }
            if carousel {
                throw PushModelError(path: "\(path).carouselIntervalSeconds", reason: "\(name) is an alert push, and a carousel's pushes "
                                     + "are silent; expected no carouselIntervalSeconds")
            }
            if campaign.iosPush != .alert {
                throw PushModelError(path: "\(path).iosPush", reason: "\(name) is an alert with mutable-content (the notification service "
                                     + "extension attaches it), found iosPush \"\(campaign.iosPush.rawValue)\"; expected \"alert\"")
            }
            let asset = campaign.assets[0]
            guard let category = attachmentCategory(asset.type) else {
                throw PushModelError(path: "\(path).assets[0].type", reason: "\(name) needs an attachable type, found \"\(asset.type.rawValue)\"; "
                                     + "expected image, audio or video (UNNotificationAttachment)")
            }
            let limit = attachmentLimits[category]
            if asset.bytes > limit {
                throw PushModelError(path: "\(path).assets[0].bytes", reason: "\(name): a \(category) attachment of \(asset.bytes) bytes is over "
                                     + "PreloadKit's attachment limit of \(limit) bytes; expected at most \(limit)")
            }
        }
    }

    /// The attachment category of the bytes the simulated CDN serves for `type` (nil: not attachable).
    static func attachmentCategory(_ type: AssetTypeConfig) -> AttachmentCategory? {
        AttachmentCategory(kind: mediaKind(type))
    }

    /// Push `assets` of `campaign` in its payload form: its encoded size is checked against the
    /// providers' limit (`CampaignPayload.pushBytesMax`) before PreloadKit parses it.
    /// - Throws: `PushModelError` naming the campaign, the byte count, the limit and the fix.
    static func parsedPush(_ campaign: CampaignConfig, assets: [Int], silent: Bool, expirySeconds: Int64?, options: PayloadOptions,
                           path: String) throws -> (request: PreStageRequest, bytes: Int) {
        let document = CampaignPayload.pushDocument(campaign, form: campaign.payloadForm, assets: assets, silent: silent,
                                                    expirySeconds: expirySeconds, manifestURL: manifestURL(campaign), url: assetURL(campaign))
        let bytes = CampaignPayload.signedBytes(document)
        if campaign.preStage && bytes > CampaignPayload.pushBytesMax {
            throw PushModelError(path: path, reason: "the push payload is \(bytes) bytes (payloadForm \"\(campaign.payloadForm.rawValue)\", "
                                 + "\(assets.count) assets, signature included), over the APNs/FCM limit of \(CampaignPayload.pushBytesMax) "
                                 + "bytes; expected at most \(CampaignPayload.pushBytesMax): send the manifest by reference "
                                 + "(payloadForm \"manifestReference\"), or shorten asset names or drop variants")
        }
        return (try parse(document, options: options, path: path), bytes)
    }

    /// The URL of `campaign`'s referenced manifest (signed like its assets: token `t1`).
    static func manifestURL(_ campaign: CampaignConfig) -> String {
        "https://\(cdnHost)" + CampaignPayload.manifestPath(campaign: campaign.name) + "?token=t1"
    }

    /// Campaign `c`'s referenced manifest, when its pushes carry one (a campaign that does not
    /// pre-stage sends a plain alert, whatever its form): an object of the catalogue
    /// (the signed document's bytes, the campaign's `Cache-Control` and surrogate key, warmed
    /// with its assets), answered with the manifest parsed once (`.parsedManifest`). Records
    /// the campaign's `manifestObject` and `entryRequests`.
    /// - Throws: `PushModelError` when the manifest is over PreloadKit's manifest limit or refused.
    mutating func addReferencedManifest(_ c: Int, _ campaign: CampaignConfig, push: PreStageRequest, policy: CachePolicy, path: String) throws {
        guard campaign.preStage && campaign.payloadForm == .manifestReference else {
            manifestObject.append(.max)
            entryRequests.append(push)
            return
        }
        // One manifest object serves every wave: it expires with the last wave's pushes.
        let document = CampaignPayload.manifestDocument(campaign, expirySeconds: CampaignPlans.expirySeconds(campaign, part: 0,
                                                                                                           sendSeconds: waveStartSeconds[c].last ?? campaign.sendStartSeconds),
                                                        url: CampaignPlans.assetURL(campaign))
        let size = CampaignPayload.signedBytes(document)
        if size > CampaignPlans.manifestBytesMax {
            throw PushModelError(path: path, reason: "the referenced manifest is \(size) bytes, over PreloadKit's manifest limit of "
                                 + "\(CampaignPlans.manifestBytesMax) bytes; expected fewer or shorter asset names, or fewer variants")
        }
        var options = payloadOptions
        options.limits.documentBytesMax = CampaignPlans.manifestBytesMax
        let manifest: PreStageRequest
        let json: [UInt8]
        do {
            json = try CampaignPayload.signed(document, options: options)
            manifest = try PayloadParser.parseReferencedManifest(json: json, for: push, options: options)
        } catch {
            throw PushModelError(path: path, reason: "PreloadKit refused the referenced manifest: \(error)")
        }
        let bytes = Int64(json.count)
        let id: UInt32
        do {
            id = try catalog.add(bytes: bytes, policy: policy, surrogateKey: UInt32(c), placeholderEligible: false)
        } catch {
            throw PushModelError(path: path, reason: "\(error)")
        }
        let headers = FetchHeaders(status: 200, cacheControl: campaign.cacheControl.headerValue, contentType: "application/json", contentLength: bytes)
        responses.append(ObjectResponse(completion: FetchCompletion(headers: headers, bytesReceived: bytes, prefix: Array(json.prefix(64)),
                                                                    body: .parsedManifest(manifest)), bytes: bytes))
        objectCampaign.append(-1)  // never a store entry
        objectKind.append(.json)
        warmObjects[c].append(id)
        manifestObject.append(id)
        entryRequests.append(manifest)
    }
}
