import { baseDoc, type BaseName } from "./bases.ts";
import { after, before, delAttr, drop, element, rep, setAttr, type Edit } from "./edits.ts";

// One case per rule: a mutation of a clean base document that must give exactly that rule's finding (`bad`), and a
// close variant that must give no finding at all (`good`; no edits = the base itself).

export interface LintCase {
  rule: string;
  base: BaseName;
  bad: Edit[];
  good: Edit[];
  /** The good variant starts from another base (VAST 1.0 vs 2.0). */
  goodBase?: BaseName;
}

const c = (rule: string, base: BaseName, bad: Edit | Edit[], good: Edit | Edit[] = []): LintCase => ({
  rule, base, bad: Array.isArray(bad) ? bad : [bad], good: Array.isArray(good) ? good : [good],
});

const T = "https://track.adserver.net";
const IMP = "<![CDATA[https://track.adserver.net/imp?cb=[CACHEBUSTING]]]>";
const wrapperBody = element(baseDoc("wrapper-4.2"), "Wrapper");
const ad42 = element(baseDoc("inline-4.2"), "Ad");
const secondAd = (id: string, seq?: string) =>
  ad42.replace('<Ad id="ad-1">', `<Ad id="${id}"${seq ? ` sequence="${seq}"` : ""}>`).replace(/imp\?cb=/, "imp2?cb=");
const addAd = (xml: string): Edit => after("</Ad>", `\n  ${xml}`);
const mf = (attrs: string, url = "https://cdn.adserver.net/extra.mp4") => `\n              <MediaFile ${attrs}><![CDATA[${url}]]></MediaFile>`;
const icf = (attrs: string, url = "https://cdn.adserver.net/simid.html") => `\n              <InteractiveCreativeFile ${attrs}><![CDATA[${url}]]></InteractiveCreativeFile>`;
const inMediaFiles = (xml: string): Edit => before("\n            </MediaFiles>", xml);
const tracker = (event: string, url = `${T}/${event}-x`, extra = "") => `\n              <Tracking event="${event}"${extra}><![CDATA[${url}]]></Tracking>`;
const inLinearTracking = (xml: string): Edit => before("\n            </TrackingEvents>", xml);
const foo = "<Foo>custom</Foo>";

const required: LintCase[] = [
  c("vast.root.version.required", "inline-4.2", rep('<VAST version="4.2"', "<VAST"), rep('<VAST version="4.2"', '<VAST version="4.3"')),
  c("vast.root.ad-or-error.required", "inline-4.2", rep(/<Ad id="ad-1">[\s\S]*<\/Ad>/, ""), rep(/<Ad id="ad-1">[\s\S]*<\/Ad>/, `<Error><![CDATA[${T}/no-ad?code=[ERRORCODE]]]></Error>`)),
  c("vast.ad.inline-or-wrapper.required", "inline-4.2", rep(/<InLine>[\s\S]*<\/InLine>/, "")),
  c("vast.ad.inline-and-wrapper", "inline-4.2", after("</InLine>", `\n    ${wrapperBody}`)),
  c("vast.ad.id.required", "inline-2.0", delAttr("Ad", "id"), setAttr("Ad", "id", "ad-2")),
  c("vast.inline.ad-system.required", "inline-4.2", drop("AdSystem"), rep("CVA Ad Server", "CVA Ad Server EU")),
  c("vast.inline.ad-title.required", "inline-4.2", drop("AdTitle"), rep("<AdTitle>Spring campaign", "<AdTitle>Spring campaign B")),
  c("vast.inline.impression.required", "inline-4.2", drop("Impression"), rep("imp?cb=", "impression?cb=")),
  c("vast.inline.creatives.required", "inline-4.2", drop("Creatives")),
  c("vast.wrapper.ad-system.required", "wrapper-4.2", drop("AdSystem"), rep("CVA Exchange", "CVA Exchange EU")),
  c("vast.wrapper.vast-ad-tag-uri.required", "wrapper-4.2", drop("VASTAdTagURI"), rep("slot=preroll", "slot=midroll")),
  c("vast.wrapper.impression.required", "wrapper-4.2", drop("Impression"), rep("wrapper-imp", "wrapper-impression")),
  c("vast.wrapper.creatives.required", "wrapper-3.0", drop("Creatives"), rep("wrapper-start", "wrapper-begin")),
  c("vast.creative.content.required", "inline-4.2", drop("NonLinearAds")),
  c("vast.linear.duration.required", "inline-4.2", drop("Duration"), rep("<Duration>00:00:30.000", "<Duration>00:00:30")),
  c("vast.linear.media-files.required", "inline-4.2", drop("MediaFiles")),
  c("vast.media-files.media-file.required", "inline-4.2", rep(/\n\s*<MediaFile id[^\n]*/g, "")),
  c("vast.media-file.delivery.required", "inline-4.2", delAttr("MediaFile", "delivery"), setAttr("MediaFile", "delivery", "streaming")),
  c("vast.media-file.type.required", "inline-3.0", delAttr("MediaFile", "type"), setAttr("MediaFile", "type", "video/webm")),
  c("vast.media-file.width.required", "inline-4.2", delAttr("MediaFile", "width"), setAttr("MediaFile", "width", "1919")),
  c("vast.media-file.height.required", "inline-4.2", delAttr("MediaFile", "height"), setAttr("MediaFile", "height", "1079")),
  c("vast.media-file.url.required", "inline-4.2", rep("<![CDATA[https://cdn.adserver.net/spring-360.mp4]]>", ""), rep("spring-360.mp4", "spring-360p.mp4")),
  ...(["delivery", "type", "width", "height"] as const).map((a) =>
    c(`vast.mezzanine.${a}.required`, "inline-4.2", delAttr("Mezzanine", a), setAttr("Mezzanine", a, { delivery: "progressive", type: "video/quicktime", width: "3840", height: "2160" }[a])),
  ),
  c("vast.nonlinear.width.required", "inline-4.2", delAttr("NonLinear", "width"), setAttr("NonLinear", "width", "500")),
  c("vast.nonlinear.height.required", "inline-4.2", delAttr("NonLinear", "height"), setAttr("NonLinear", "height", "80")),
  c("vast.nonlinear.resource.required", "inline-4.2", drop("StaticResource", "overlay-480x70"), rep(/<StaticResource creativeType="image\/png"><!\[CDATA\[https:\/\/cdn.adserver.net\/overlay-480x70.png\]\]><\/StaticResource>/, "<IFrameResource><![CDATA[https://cdn.adserver.net/overlay.html]]></IFrameResource>")),
  c("vast.nonlinear-ads.nonlinear.required", "inline-4.2", drop("NonLinear")),
  c("vast.static-resource.creative-type.required", "inline-4.2", rep('<StaticResource creativeType="image/png"><![CDATA[https://cdn.adserver.net/companion', "<StaticResource><![CDATA[https://cdn.adserver.net/companion"), rep('creativeType="image/png"><![CDATA[https://cdn.adserver.net/companion', 'creativeType="image/jpeg"><![CDATA[https://cdn.adserver.net/companion')),
  c("vast.creative-resource.empty", "inline-4.2", rep("<![CDATA[https://cdn.adserver.net/overlay-480x70.png]]>", ""), rep("overlay-480x70.png", "overlay-480x70b.png")),
  c("vast.tracking.event.required", "inline-4.2", rep('<Tracking event="progress" offset=', "<Tracking offset="), rep('<Tracking event="progress" offset="00:00:10.000"', '<Tracking event="progress" offset="00:00:12.000"')),
  c("vast.inline.error.recommended", "inline-4.2", drop("Error"), rep("/error?code=", "/err?code=")),
];

const formats: LintCase[] = [
  c("vast.root.version.known", "inline-4.2", rep('<VAST version="4.2"', '<VAST version="5.0"'), rep('<VAST version="4.2"', '<VAST version="4.3"')),
  c("vast.linear.duration.format", "inline-4.2", rep("<Duration>00:00:30.000", "<Duration>30"), rep("<Duration>00:00:30.000", "<Duration>00:00:30")),
  c("vast.linear.duration.zero", "inline-4.2", rep("<Duration>00:00:30.000", "<Duration>00:00:00.000"), rep("<Duration>00:00:30.000", "<Duration>00:00:15.000")),
  c("vast.linear.skipoffset.format", "inline-4.2", setAttr("Linear", "skipoffset", "5s"), setAttr("Linear", "skipoffset", "25%")),
  c("vast.linear.skipoffset.beyond-duration", "inline-4.2", setAttr("Linear", "skipoffset", "00:00:30"), setAttr("Linear", "skipoffset", "00:00:29")),
  c("vast.media-file.delivery.enum", "inline-4.2", setAttr("MediaFile", "delivery", "download"), setAttr("MediaFile", "delivery", "streaming")),
  c("vast.mezzanine.delivery.enum", "inline-4.2", setAttr("Mezzanine", "delivery", "download")),
  c("vast.media-file.type.mime", "inline-3.0", setAttr("MediaFile", "type", "mp4"), setAttr("MediaFile", "type", "video/webm")),
  c("vast.media-file.width.integer", "inline-4.2", setAttr("MediaFile", "width", "1920px"), setAttr("MediaFile", "width", "1921")),
  c("vast.media-file.height.integer", "inline-4.2", setAttr("MediaFile", "height", "1080p"), setAttr("MediaFile", "height", "1081")),
  c("vast.media-file.bitrate.integer", "inline-4.2", setAttr("MediaFile", "bitrate", "4 Mbps"), setAttr("MediaFile", "bitrate", "4500")),
  c("vast.media-file.min-max-bitrate.integer", "inline-4.2", [setAttr("MediaFile", "minBitrate", "low"), setAttr("MediaFile", "maxBitrate", "4500")], [setAttr("MediaFile", "minBitrate", "3000"), setAttr("MediaFile", "maxBitrate", "4500")]),
  c("vast.media-file.min-max-bitrate.order", "inline-4.2", [setAttr("MediaFile", "minBitrate", "5000"), setAttr("MediaFile", "maxBitrate", "3000")], [setAttr("MediaFile", "minBitrate", "3000"), setAttr("MediaFile", "maxBitrate", "5000")]),
  c("vast.media-file.scalable.boolean", "inline-4.2", setAttr("MediaFile", "scalable", "yes"), setAttr("MediaFile", "scalable", "false")),
  c("vast.media-file.maintain-aspect-ratio.boolean", "inline-4.2", setAttr("MediaFile", "maintainAspectRatio", "yes"), setAttr("MediaFile", "maintainAspectRatio", "false")),
  c("vast.media-file.file-size.integer", "inline-4.2", setAttr("MediaFile", "fileSize", "2 MB"), setAttr("MediaFile", "fileSize", "2097152")),
  c("vast.media-file.media-type.enum", "inline-4.2", setAttr("MediaFile", "mediaType", "VR"), setAttr("MediaFile", "mediaType", "2D")),
  c("vast.media-file.codec.rfc6381", "inline-4.2", setAttr("MediaFile", "codec", "H.264 High"), setAttr("MediaFile", "codec", "avc1.4D401F")),
  c("vast.nonlinear.width.integer", "inline-4.2", setAttr("NonLinear", "width", "480px"), setAttr("NonLinear", "width", "481")),
  c("vast.nonlinear.height.integer", "inline-4.2", setAttr("NonLinear", "height", "70px"), setAttr("NonLinear", "height", "71")),
  c("vast.nonlinear.expanded-width.integer", "inline-4.2", setAttr("NonLinear", "expandedWidth", "wide"), setAttr("NonLinear", "expandedWidth", "960")),
  c("vast.nonlinear.expanded-height.integer", "inline-4.2", setAttr("NonLinear", "expandedHeight", "tall"), setAttr("NonLinear", "expandedHeight", "540")),
  c("vast.nonlinear.scalable.boolean", "inline-4.2", setAttr("NonLinear", "scalable", "no"), setAttr("NonLinear", "scalable", "false")),
  c("vast.nonlinear.maintain-aspect-ratio.boolean", "inline-4.2", setAttr("NonLinear", "maintainAspectRatio", "no"), setAttr("NonLinear", "maintainAspectRatio", "false")),
  c("vast.nonlinear.min-suggested-duration.format", "inline-4.2", setAttr("NonLinear", "minSuggestedDuration", "10s"), setAttr("NonLinear", "minSuggestedDuration", "00:00:15")),
  c("vast.ad.conditional-ad.boolean", "inline-4.0", setAttr("Ad", "conditionalAd", "maybe"), setAttr("Ad", "conditionalAd", "false")),
  c("vast.ad.ad-type.enum", "inline-4.2", setAttr("Ad", "adType", "display"), setAttr("Ad", "adType", "video")),
  c("vast.creative.sequence.integer", "inline-4.2", setAttr("Creative", "sequence", "first"), setAttr("Creative", "sequence", "4")),
  c("vast.pricing.model.enum", "inline-4.2", setAttr("Pricing", "model", "flat"), setAttr("Pricing", "model", "CPC")),
  c("vast.pricing.model.case", "inline-3.0", setAttr("Pricing", "model", "CPM"), setAttr("Pricing", "model", "cpc")),
  c("vast.pricing.currency.iso4217", "inline-4.2", setAttr("Pricing", "currency", "US Dollar"), setAttr("Pricing", "currency", "EUR")),
  c("vast.pricing.value.decimal", "inline-4.2", rep(">25.00</Pricing>", ">25 USD</Pricing>"), rep(">25.00</Pricing>", ">30.5</Pricing>")),
  c("vast.expires.integer", "inline-4.2", rep("<Expires>3600", "<Expires>1h"), rep("<Expires>3600", "<Expires>7200")),
  c("vast.ad-parameters.xml-encoded.boolean", "inline-4.2", after("</NonLinearClickThrough>", '\n              <AdParameters xmlEncoded="yes"><![CDATA[{"theme":"spring"}]]></AdParameters>'), after("</NonLinearClickThrough>", '\n              <AdParameters xmlEncoded="false"><![CDATA[{"theme":"spring"}]]></AdParameters>')),
  c("vast.closed-caption-file.type.mime", "inline-4.2", setAttr("ClosedCaptionFile", "type", "vtt"), setAttr("ClosedCaptionFile", "type", "application/ttml+xml")),
  c("vast.closed-caption-file.language.bcp47", "inline-4.2", setAttr("ClosedCaptionFile", "language", "English"), setAttr("ClosedCaptionFile", "language", "en-GB")),
  c("vast.interactive-creative-file.variable-duration.boolean", "inline-4.2", inMediaFiles(icf('type="text/html" apiFramework="SIMID" variableDuration="sometimes"')), inMediaFiles(icf('type="text/html" apiFramework="SIMID" variableDuration="true"'))),
  c("vast.js-resource.browser-optional.boolean", "inline-4.2", setAttr("JavaScriptResource", "browserOptional", "yes"), setAttr("JavaScriptResource", "browserOptional", "false")),
  c("vast.text-element.has-children", "inline-4.2", rep("<AdTitle>Spring campaign</AdTitle>", "<AdTitle>Spring <b>campaign</b></AdTitle>"), rep("<AdTitle>Spring campaign</AdTitle>", "<AdTitle>Spring campaign (b)</AdTitle>")),
  c("vast.ad-system.version.text", "inline-4.2", setAttr("AdSystem", "version", ""), setAttr("AdSystem", "version", "3.0")),
  c("vast.inline.ad-title.empty", "inline-4.2", rep("<AdTitle>Spring campaign</AdTitle>", "<AdTitle></AdTitle>"), rep("<AdTitle>Spring campaign</AdTitle>", "<AdTitle>Spring</AdTitle>")),
  c("vast.companion.pxratio.decimal", "inline-4.2", setAttr("Companion", "pxratio", "retina"), setAttr("Companion", "pxratio", "2")),
  c("vast.ad.sequence.positive", "inline-4.2", setAttr("Ad", "sequence", "0"), setAttr("Ad", "sequence", "1")),
];

const conditional: LintCase[] = [
  c("vast.creative.universal-ad-id.required", "inline-4.2", drop("UniversalAdId"), rep("ABCD1234567H", "ABCD1234567D")),
  c("vast.universal-ad-id.id-registry.required", "inline-4.2", delAttr("UniversalAdId", "idRegistry"), setAttr("UniversalAdId", "idRegistry", "clearcast")),
  c("vast.universal-ad-id.id-value.required", "inline-4.0", delAttr("UniversalAdId", "idValue"), setAttr("UniversalAdId", "idValue", "ABCD1234567D")),
  c("vast.universal-ad-id.value.required", "inline-4.2", rep(">ABCD1234567H</UniversalAdId>", "></UniversalAdId>"), rep(">ABCD1234567H</UniversalAdId>", ">unknown</UniversalAdId>")),
  c("vast.universal-ad-id.ad-id.format", "inline-4.2", rep(">ABCD1234567H<", ">12345<"), rep(">ABCD1234567H<", ">WXYZ7654321D<")),
  c("vast.inline.ad-serving-id.required", "inline-4.2", drop("AdServingId"), rep("srv-0001", "srv-0002")),
  c("vast.inline.ad-serving-id.empty", "inline-4.2", rep("<AdServingId>srv-0001", "<AdServingId>"), rep("<AdServingId>srv-0001", "<AdServingId>srv-9")),
  c("vast.verification.vendor.required", "inline-4.2", delAttr("Verification", "vendor"), setAttr("Verification", "vendor", "measure.com-viewability")),
  c("vast.verification.resource.required", "inline-4.2", drop("JavaScriptResource"), rep("omid-validation.js", "omid-verification.js")),
  c("vast.verification.js-resource.api-framework.required", "inline-4.2", delAttr("JavaScriptResource", "apiFramework"), setAttr("JavaScriptResource", "apiFramework", "omsdk")),
  c("vast.verification.executable-resource.api-framework.required", "inline-4.2", after("</JavaScriptResource>", '\n          <ExecutableResource type="application/javascript"><![CDATA[https://cdn.measure.net/exec.js]]></ExecutableResource>'), after("</JavaScriptResource>", '\n          <ExecutableResource apiFramework="omid" type="application/javascript"><![CDATA[https://cdn.measure.net/exec.js]]></ExecutableResource>')),
  c("vast.verification.executable-resource.type.required", "inline-4.2", after("</JavaScriptResource>", '\n          <ExecutableResource apiFramework="omid"><![CDATA[https://cdn.measure.net/exec.js]]></ExecutableResource>'), after("</JavaScriptResource>", '\n          <ExecutableResource apiFramework="omid" type="application/javascript"><![CDATA[https://cdn.measure.net/exec.js]]></ExecutableResource>')),
  c("vast.verification.js-resource.url", "inline-4.2", rep("https://cdn.measure.net/omid-validation.js", "omid-validation.js"), rep("https://cdn.measure.net/omid-validation.js", "https://cdn.measure.net/v2/omid-validation.js")),
  c("vast.pricing.model.required", "inline-4.2", delAttr("Pricing", "model"), setAttr("Pricing", "model", "CPV")),
  c("vast.pricing.currency.required", "inline-4.2", delAttr("Pricing", "currency"), setAttr("Pricing", "currency", "GBP")),
  c("vast.category.authority.required", "inline-4.2", delAttr("Category", "authority"), setAttr("Category", "authority", "https://iabtechlab.com/taxonomy")),
  c("vast.category.authority.uri", "inline-4.2", setAttr("Category", "authority", "IAB"), setAttr("Category", "authority", "https://www.iab.com")),
  c("vast.universal-ad-id.id-value.removed", "inline-4.2", setAttr("UniversalAdId", "idValue", "ABCD1234567H")),
  c("vast.verification.vendor.format", "inline-4.2", setAttr("Verification", "vendor", "Measure"), setAttr("Verification", "vendor", "measure.net-omid")),
  c("vast.verification.vendor.duplicate", "inline-4.2", (d) => after("</Verification>", `\n        ${element(d, "Verification")}`)(d), (d) => after("</Verification>", `\n        ${element(d, "Verification").replace("measure.com-omid", "other.com-omid")}`)(d)),
  c("vast.verification.parameters.recommended", "inline-4.2", drop("VerificationParameters"), rep('"campaign":"spring"', '"campaign":"summer"')),
  c("vast.verification.js-resource.https", "inline-4.2", rep("https://cdn.measure.net/omid-validation.js", "http://cdn.measure.net/omid-validation.js"), rep("https://cdn.measure.net/omid-validation.js", "https://cdn.measure.net/omid.js")),
];

const vpaidFile = mf('delivery="progressive" type="application/javascript" width="640" height="360" apiFramework="VPAID"', "https://cdn.adserver.net/vpaid.js");
const deprecated: LintCase[] = [
  c("vast.vpaid.deprecated", "inline-4.2", inMediaFiles(vpaidFile), inMediaFiles(icf('type="text/html" apiFramework="SIMID"'))),
  c("vast.media-file.api-framework.interactive-file", "inline-4.0", inMediaFiles(vpaidFile), inMediaFiles(icf('type="application/javascript" apiFramework="VPAID"', "https://cdn.adserver.net/vpaid.js"))),
  c("vast.flash.deprecated", "inline-4.2", rep('creativeType="image/png"><![CDATA[https://cdn.adserver.net/companion-300x250.png', 'creativeType="application/x-shockwave-flash"><![CDATA[https://cdn.adserver.net/companion-300x250.swf'), rep('creativeType="image/png"><![CDATA[https://cdn.adserver.net/companion-300x250.png', 'creativeType="image/gif"><![CDATA[https://cdn.adserver.net/companion-300x250.gif')),
  c("vast.ad.conditional-ad.deprecated", "inline-4.2", setAttr("Ad", "conditionalAd", "false")),
  c("vast.survey.deprecated", "inline-4.2", after("<Description>Spring campaign, 30 s</Description>", "\n      <Survey><![CDATA[https://survey.adserver.net/s]]></Survey>")),
  c("vast.creative.ad-id.spelling", "inline-4.2", rep('adId="spring-30"', 'AdID="spring-30"'), rep('adId="spring-30"', 'adId="spring-31"')),
  c("vast.extensions.ad-verifications.legacy", "inline-4.2", rep('<Extension type="brand-safety">', '<Extension type="AdVerifications">'), rep('<Extension type="brand-safety">', '<Extension type="brand-lift">')),
  c("vast.creative-extensions.linear.version", "inline-3.0", after("<Duration>00:00:30.000</Duration>", '\n            <CreativeExtensions><CreativeExtension type="x">1</CreativeExtension></CreativeExtensions>'), after('<Creative id="creative-1" sequence="1" adId="spring-30">', '\n          <CreativeExtensions><CreativeExtension type="x">1</CreativeExtension></CreativeExtensions>')),
];

const withParam = (p: string) => rep(IMP, `<![CDATA[https://track.adserver.net/imp?cb=[CACHEBUSTING]&${p}]]>`);
const macros: LintCase[] = [
  c("vast.macro.unknown", "inline-4.2", withParam("x=[FOO_BAR]"), withParam("x=[TIMESTAMP]")),
  c("vast.macro.case", "inline-4.2", rep("imp?cb=[CACHEBUSTING]", "imp?cb=[cachebusting]"), rep("imp?cb=[CACHEBUSTING]", "imp?cb=[TIMESTAMP]")),
  c("vast.macro.non-standard", "inline-4.2", withParam("cb2=[CACHEBUSTER]"), withParam("cb2=[TIMESTAMP]")),
  c("vast.macro.version", "inline-3.0", withParam("sid=[ADSERVINGID]"), withParam("asset=[ASSETURI]")),
  c("vast.macro.deprecated", "inline-4.2", rep(`${T}/start]]>`, `${T}/start?ph=[CONTENTPLAYHEAD]]]>`), rep(`${T}/start]]>`, `${T}/start?ph=[ADPLAYHEAD]]]>`)),
  c("vast.macro.context", "inline-4.2", withParam("e=[ERRORCODE]"), withParam("n=[ADCOUNT]")),
  c("vast.macro.encoded", "inline-4.2", withParam("t=%5BTIMESTAMP%5D"), withParam("t=[TIMESTAMP]")),
  c("vast.macro.unbalanced", "inline-4.2", withParam("t=[TIMESTAMP"), withParam("t=[TIMESTAMP]")),
  c("vast.macro.whitespace", "inline-4.2", withParam("t=[ TIMESTAMP ]"), withParam("t=[TIMESTAMP]")),
  c("vast.macro.ad-server.unexpanded", "inline-4.2", withParam("cb2=%%CACHEBUSTER%%"), withParam("cb2=[TIMESTAMP]")),
  c("vast.macro.error-code.missing", "inline-4.2", rep("code=[ERRORCODE]", "code=0"), rep("code=[ERRORCODE]", "code=[ERRORCODE]&v=2")),
  c("vast.macro.cachebusting.missing", "inline-4.2", rep("imp?cb=[CACHEBUSTING]", "imp?cb=1"), rep("imp?cb=[CACHEBUSTING]", "imp?cb=[TIMESTAMP]")),
];

const clickTracking = (url: string) => rep(`<![CDATA[${T}/click]]>`, url === "" ? "" : `<![CDATA[${url}]]>`);
const clickThrough = (url: string) => rep("<![CDATA[https://www.spring-brand.com/landing]]>", `<![CDATA[${url}]]>`);
const urls: LintCase[] = [
  c("vast.url.empty", "inline-4.2", clickTracking(""), clickTracking(`${T}/click2`)),
  c("vast.url.invalid", "inline-4.2", clickThrough("ftp://files.spring-brand.com/landing"), clickThrough("https://files.spring-brand.com/landing")),
  c("vast.url.relative", "inline-4.2", clickThrough("www.spring-brand.com/landing"), clickThrough("https://www.spring-brand.com/other")),
  c("vast.url.script-scheme", "inline-4.2", clickThrough("javascript:alert(1)"), clickThrough("https://www.spring-brand.com/alert")),
  c("vast.url.protocol-relative", "inline-4.2", clickTracking("//track.adserver.net/click"), clickTracking(`${T}/click2`)),
  c("vast.url.whitespace", "inline-4.2", clickThrough("https://www.spring-brand.com/spring landing"), clickThrough("https://www.spring-brand.com/spring%20landing")),
  c("vast.url.insecure", "inline-4.2", clickTracking("http://track.adserver.net/click"), clickTracking(`${T}/click2`)),
  c("vast.url.non-production-host", "inline-4.2", clickTracking("https://localhost/click"), clickTracking("https://track2.adserver.net/click")),
  c("vast.url.cdata", "inline-4.2", rep(IMP, "https://track.adserver.net/imp?cb=[CACHEBUSTING]&amp;x=1"), rep(IMP, "<![CDATA[https://track.adserver.net/imp?cb=[CACHEBUSTING]&x=1]]>")),
  c("vast.url.too-long", "inline-4.2", clickTracking(`${T}/click?q=${"a".repeat(9000)}`), clickTracking(`${T}/click?q=${"a".repeat(100)}`)),
];

const wrappers: LintCase[] = [
  c("vast.wrapper.vast-ad-tag-uri.url", "wrapper-4.2", rep("<![CDATA[https://ads.adserver.net/vast?slot=preroll&cb=[CACHEBUSTING]]]>", "<![CDATA[ftp://ads.adserver.net/vast.xml]]>"), rep("slot=preroll", "slot=postroll")),
  c("vast.wrapper.vast-ad-tag-uri.single", "wrapper-4.2", (d) => after("</VASTAdTagURI>", `\n      ${element(d, "VASTAdTagURI")}`)(d)),
  c("vast.wrapper.follow-additional-wrappers.boolean", "wrapper-4.2", setAttr("Wrapper", "followAdditionalWrappers", "yes"), setAttr("Wrapper", "followAdditionalWrappers", "1")),
  c("vast.wrapper.allow-multiple-ads.boolean", "wrapper-4.2", setAttr("Wrapper", "allowMultipleAds", "yes"), setAttr("Wrapper", "allowMultipleAds", "true")),
  c("vast.wrapper.fallback-on-no-ad.boolean", "wrapper-4.2", setAttr("Wrapper", "fallbackOnNoAd", "yes"), setAttr("Wrapper", "fallbackOnNoAd", "false")),
  c("vast.wrapper.attributes.version", "wrapper-2.0", setAttr("Wrapper", "allowMultipleAds", "true")),
  c("vast.wrapper.allow-multiple-ads.pod", "wrapper-4.2", [setAttr("Ad", "sequence", "1"), setAttr("Wrapper", "allowMultipleAds", "true")], setAttr("Ad", "sequence", "1")),
  c("vast.wrapper.media-files.ignored", "wrapper-4.2", before("\n            <TrackingEvents>", "\n            <Duration>00:00:30</Duration>")),
  c("vast.wrapper.click-through.ignored", "wrapper-4.1", before("\n              <ClickTracking>", `\n              <ClickThrough><![CDATA[https://www.spring-brand.com/landing]]></ClickThrough>`), before("\n              <ClickTracking>", `\n              <ClickTracking><![CDATA[${T}/wrapper-click-2]]></ClickTracking>`)),
  c("vast.wrapper.nonlinear.resource.ignored", "wrapper-4.2", before("\n      </Creatives>", `\n        <Creative><NonLinearAds><NonLinear width="480" height="70"><StaticResource creativeType="image/png"><![CDATA[https://cdn.adserver.net/overlay.png]]></StaticResource></NonLinear></NonLinearAds></Creative>`), before("\n      </Creatives>", `\n        <Creative><NonLinearAds><NonLinear width="480" height="70"><NonLinearClickTracking><![CDATA[${T}/overlay-click]]></NonLinearClickTracking></NonLinear></NonLinearAds></Creative>`)),
  c("vast.wrapper.inline-only-element", "wrapper-4.2", after("</AdSystem>", "\n      <AdTitle>Spring campaign</AdTitle>")),
  c("vast.wrapper.follow-additional-wrappers.false", "wrapper-4.2", setAttr("Wrapper", "followAdditionalWrappers", "false")),
];

const pods: LintCase[] = [
  c("vast.pod.sequence.duplicate", "inline-4.2", [setAttr("Ad", "sequence", "1"), addAd(secondAd("ad-2", "1"))], [setAttr("Ad", "sequence", "1"), addAd(secondAd("ad-2", "2"))]),
  c("vast.pod.sequence.gap", "inline-4.2", [setAttr("Ad", "sequence", "1"), addAd(secondAd("ad-2", "3"))], [setAttr("Ad", "sequence", "1"), addAd(secondAd("ad-2", "2"))]),
  c("vast.pod.sequence.version", "inline-2.0", setAttr("Ad", "sequence", "1")),
  c("vast.ad.id.unique", "inline-4.2", addAd(secondAd("ad-1")), addAd(secondAd("ad-2"))),
  c("vast.creative.sequence.duplicate", "inline-4.2", setAttr("Creative", "sequence", "1", 1), setAttr("Creative", "sequence", "4", 1)),
  c("vast.pod.wrapper.fallback-on-no-ad", "wrapper-4.2", [setAttr("Ad", "sequence", "1"), delAttr("Wrapper", "fallbackOnNoAd")], setAttr("Ad", "sequence", "1")),
];

const iconTag = (attr: string, value: string) => setAttr("Icon", attr, value);
const icons: LintCase[] = [
  ...(["program", "width", "height", "xPosition", "yPosition"] as const).map((a) =>
    c(`vast.icon.${a.replace(/[A-Z]/g, (x) => `-${x.toLowerCase()}`)}.required`, "inline-4.2", delAttr("Icon", a), iconTag(a, { program: "AdChoices", width: "24", height: "24", xPosition: "left", yPosition: "bottom" }[a])),
  ),
  c("vast.icon.resource.required", "inline-4.2", drop("StaticResource", "adchoices.png"), rep('<StaticResource creativeType="image/png"><![CDATA[https://cdn.adserver.net/adchoices.png]]></StaticResource>', "<IFrameResource><![CDATA[https://cdn.adserver.net/adchoices.html]]></IFrameResource>")),
  c("vast.icon.x-position.format", "inline-4.2", iconTag("xPosition", "middle"), iconTag("xPosition", "10")),
  c("vast.icon.y-position.format", "inline-4.2", iconTag("yPosition", "middle"), iconTag("yPosition", "10")),
  c("vast.icon.width.integer", "inline-4.2", iconTag("width", "20px"), iconTag("width", "24")),
  c("vast.icon.height.integer", "inline-4.2", iconTag("height", "20px"), iconTag("height", "24")),
  c("vast.icon.offset.format", "inline-4.2", iconTag("offset", "0s"), iconTag("offset", "00:00:01")),
  c("vast.icon.duration.format", "inline-4.2", iconTag("duration", "30s"), iconTag("duration", "00:00:15.000")),
  c("vast.icon.offset.beyond-duration", "inline-4.2", iconTag("offset", "00:00:40"), iconTag("offset", "00:00:20")),
  c("vast.icon.adchoices.click-through", "inline-4.2", drop("IconClickThrough"), rep("optout.aboutads.info/", "optout.aboutads.info/choices")),
  c("vast.icon.program.case", "inline-4.2", iconTag("program", "adchoices")),
  c("vast.icon.program.duplicate", "inline-4.2", (d) => after("</Icon>", `\n              ${element(d, "Icon")}`)(d), (d) => after("</Icon>", `\n              ${element(d, "Icon").replace('program="AdChoices"', 'program="Sponsorship"')}`)(d)),
  c("vast.icon.adchoices.fallback-image", "inline-4.2", drop("IconClickFallbackImages")),
  c("vast.icon.fallback-image.size", "inline-4.2", delAttr("IconClickFallbackImage", "width"), setAttr("IconClickFallbackImage", "width", "320")),
  c("vast.icon.fallback-image.resource", "inline-4.2", drop("StaticResource", "adchoices-notice"), rep("adchoices-notice.png", "adchoices-notice-2.png")),
  c("vast.icon.fallback-image.alt-text", "inline-4.2", drop("AltText", "AdChoices notice"), rep("AdChoices notice", "About this ad")),
  c("vast.icon-click-fallback-images.image.required", "inline-4.2", rep(/<IconClickFallbackImages>[\s\S]*<\/IconClickFallbackImages>/, "<IconClickFallbackImages></IconClickFallbackImages>")),
  c("vast.icons.icon.required", "inline-4.2", rep(/<Icons>[\s\S]*<\/Icons>/, "<Icons></Icons>")),
];

const companion = (a: string, v: string) => setAttr("Companion", a, v);
const companions: LintCase[] = [
  c("vast.companion.width.required", "inline-4.2", delAttr("Companion", "width"), companion("width", "320")),
  c("vast.companion.height.required", "inline-4.2", delAttr("Companion", "height"), companion("height", "50")),
  c("vast.companion.resource.required", "inline-4.2", drop("StaticResource", "companion-300x250"), rep(/<StaticResource creativeType="image\/png"><!\[CDATA\[https:\/\/cdn.adserver.net\/companion-300x250.png\]\]><\/StaticResource>/, "<HTMLResource><![CDATA[<div>Spring</div>]]></HTMLResource>")),
  c("vast.companion.width.integer", "inline-4.2", companion("width", "300px"), companion("width", "301")),
  c("vast.companion.height.integer", "inline-4.2", companion("height", "250px"), companion("height", "251")),
  c("vast.companion.asset-width.integer", "inline-4.2", companion("assetWidth", "full"), companion("assetWidth", "600")),
  c("vast.companion.asset-height.integer", "inline-4.2", companion("assetHeight", "full"), companion("assetHeight", "500")),
  c("vast.companion.expanded-width.integer", "inline-4.2", companion("expandedWidth", "wide"), companion("expandedWidth", "600")),
  c("vast.companion.expanded-height.integer", "inline-4.2", companion("expandedHeight", "tall"), companion("expandedHeight", "500")),
  c("vast.companion-ads.required.enum", "inline-4.2", setAttr("CompanionAds", "required", "some"), setAttr("CompanionAds", "required", "all")),
  c("vast.companion.rendering-mode.enum", "inline-4.2", companion("renderingMode", "overlay"), companion("renderingMode", "end-card")),
  c("vast.companion-click-tracking.id.required", "inline-4.2", delAttr("CompanionClickTracking", "id"), setAttr("CompanionClickTracking", "id", "comp-click-2")),
  c("vast.companion.click-through.recommended", "inline-4.2", drop("CompanionClickThrough"), rep("<CompanionClickThrough><![CDATA[https://www.spring-brand.com/landing", "<CompanionClickThrough><![CDATA[https://www.spring-brand.com/banner")),
  c("vast.companion.alt-text.recommended", "inline-4.2", drop("AltText", "banner"), rep("Spring campaign banner", "Spring banner")),
  c("vast.companion.creative-view.recommended", "inline-4.2", rep(`<TrackingEvents><Tracking event="creativeView"><![CDATA[${T}/companion-view]]></Tracking></TrackingEvents>`, ""), rep("companion-view", "companion-viewed")),
  c("vast.companion.ad-slot-id.unique", "inline-4.2", (d) => after("</Companion>", `\n            ${element(d, "Companion")}`)(d), (d) => after("</Companion>", `\n            ${element(d, "Companion").replace('adSlotId="slot-1"', 'adSlotId="slot-2"')}`)(d)),
  c("vast.companion-ads.companion.required", "inline-4.2", rep(/<CompanionAds required="any">[\s\S]*<\/CompanionAds>/, '<CompanionAds required="any"></CompanionAds>')),
  c("vast.companion.static-resource.image", "inline-4.2", rep('creativeType="image/png"><![CDATA[https://cdn.adserver.net/companion', 'creativeType="text/html"><![CDATA[https://cdn.adserver.net/companion'), rep('creativeType="image/png"><![CDATA[https://cdn.adserver.net/companion', 'creativeType="image/jpeg"><![CDATA[https://cdn.adserver.net/companion')),
];

const tracking: LintCase[] = [
  c("vast.tracking.event.enum", "inline-4.2", inLinearTracking(tracker("viewed")), inLinearTracking(tracker("pause"))),
  c("vast.tracking.event.case", "inline-4.2", inLinearTracking(tracker("Pause")), inLinearTracking(tracker("pause"))),
  c("vast.tracking.event.removed", "inline-4.2", inLinearTracking(tracker("fullscreen")), inLinearTracking(tracker("playerExpand"))),
  c("vast.tracking.progress.offset.required", "inline-4.2", rep(' offset="00:00:10.000"', ""), rep(' offset="00:00:10.000"', ' offset="25%"')),
  c("vast.tracking.offset.format", "inline-4.2", rep(' offset="00:00:10.000"', ' offset="10s"'), rep(' offset="00:00:10.000"', ' offset="00:00:12"')),
  c("vast.tracking.offset.ignored", "inline-4.2", rep('<Tracking event="start">', '<Tracking event="start" offset="00:00:01">')),
  c("vast.tracking.progress.beyond-duration", "inline-4.2", rep(' offset="00:00:10.000"', ' offset="00:00:45.000"'), rep(' offset="00:00:10.000"', ' offset="00:00:25.000"')),
  c("vast.tracking.duplicate", "inline-4.2", inLinearTracking(tracker("start", `${T}/start`)), inLinearTracking(tracker("start", `${T}/start-2`))),
  c("vast.impression.duplicate", "inline-4.2", after("</Impression>", `\n      <Impression>${IMP}</Impression>`), after("</Impression>", `\n      <Impression><![CDATA[https://track2.adserver.net/imp?cb=[CACHEBUSTING]]]></Impression>`)),
  c("vast.tracking.quartiles.recommended", "inline-4.2", rep(/\n\s*<Tracking event="midpoint">[^\n]*/, ""), rep(`${T}/midpoint`, `${T}/mid`)),
  c("vast.tracking.skip.without-skipoffset", "inline-4.2", [delAttr("Linear", "skipoffset"), inLinearTracking(tracker("skip"))], inLinearTracking(tracker("skip"))),
  c("vast.tracking.companion.creative-view-only", "inline-4.2", rep(`<Tracking event="creativeView"><![CDATA[${T}/companion-view]]></Tracking>`, `<Tracking event="creativeView"><![CDATA[${T}/companion-view]]></Tracking><Tracking event="start"><![CDATA[${T}/companion-start]]></Tracking>`)),
  c("vast.viewable-impression.empty", "inline-4.2", rep(/<ViewableImpression id="view-1">[\s\S]*?<\/ViewableImpression>/, '<ViewableImpression id="view-1"></ViewableImpression>')),
  c("vast.verification.tracking.event", "inline-4.2", rep('event="verificationNotExecuted"', 'event="error"')),
  c("vast.verification.tracking.reason", "inline-4.2", rep("?reason=[REASON]", ""), rep("?reason=[REASON]", "?r=[REASON]")),
];

const interactive: LintCase[] = [
  c("vast.interactive-creative-file.api-framework.required", "inline-4.2", inMediaFiles(icf('type="text/html"')), inMediaFiles(icf('type="text/html" apiFramework="SIMID"'))),
  c("vast.interactive-creative-file.type.required", "inline-4.2", inMediaFiles(icf('apiFramework="SIMID"')), inMediaFiles(icf('type="text/html" apiFramework="SIMID"'))),
  c("vast.interactive-creative-file.url", "inline-4.2", inMediaFiles(icf('type="text/html" apiFramework="SIMID"', "simid.html")), inMediaFiles(icf('type="text/html" apiFramework="SIMID"', "https://cdn.adserver.net/simid/index.html"))),
  c("vast.simid.type.html", "inline-4.2", inMediaFiles(icf('type="application/javascript" apiFramework="SIMID"')), inMediaFiles(icf('type="text/html" apiFramework="SIMID"'))),
  c("vast.simid.https", "inline-4.2", inMediaFiles(icf('type="text/html" apiFramework="SIMID"', "http://cdn.adserver.net/simid.html")), inMediaFiles(icf('type="text/html" apiFramework="SIMID"'))),
  c("vast.vpaid.type", "inline-3.0", inMediaFiles(mf('delivery="progressive" type="video/mp4" width="640" height="360" apiFramework="VPAID"', "https://cdn.adserver.net/vpaid.js")), inMediaFiles(mf('delivery="progressive" type="application/javascript" width="640" height="360" apiFramework="VPAID"', "https://cdn.adserver.net/vpaid.js"))),
  c("vast.ad-parameters.unused", "inline-4.2", after("<Duration>00:00:30.000</Duration>", '\n            <AdParameters><![CDATA[{"theme":"spring"}]]></AdParameters>'), after("</NonLinearClickThrough>", '\n              <AdParameters><![CDATA[{"theme":"spring"}]]></AdParameters>')),
];

const ctv: LintCase[] = [
  c("vast.ctv.mezzanine.recommended", "inline-4.2", drop("Mezzanine"), rep("spring-mezzanine.mp4", "spring-master.mp4")),
  c("vast.ctv.mezzanine.delivery", "inline-4.2", setAttr("Mezzanine", "delivery", "streaming")),
  c("vast.ctv.mezzanine.resolution", "inline-4.2", [setAttr("Mezzanine", "width", "1280"), setAttr("Mezzanine", "height", "720")], [setAttr("Mezzanine", "width", "3840"), setAttr("Mezzanine", "height", "2160")]),
  c("vast.media-file.renditions", "inline-4.2", [rep(/\n\s*<MediaFile id="mf-1080"[^\n]*/, ""), rep(/\n\s*<MediaFile id="mf-360"[^\n]*/, "")], [setAttr("MediaFile", "width", "854", 2), setAttr("MediaFile", "height", "480", 2)]),
  c("vast.ctv.media-file.mp4", "inline-4.2", rep(/type="video\/mp4" width="(1920|1280|640)"/g, 'type="video/webm" width="$1"'), setAttr("MediaFile", "type", "video/webm")),
  c("vast.ctv.media-file.bitrate", "inline-4.2", delAttr("MediaFile", "bitrate", 2), setAttr("MediaFile", "bitrate", "900", 2)),
  c("vast.ctv.media-file.hd", "inline-4.2", [setAttr("MediaFile", "width", "854"), setAttr("MediaFile", "height", "480"), setAttr("MediaFile", "width", "640", 1), setAttr("MediaFile", "height", "360", 1)], [setAttr("MediaFile", "width", "854"), setAttr("MediaFile", "height", "480")]),
  c("vast.ctv.closed-captions.recommended", "inline-4.2", drop("ClosedCaptionFiles"), rep("spring.vtt", "spring-en.vtt")),
];

const inside = (marker: string): Edit => after(marker, foo);
const structure: LintCase[] = [
  c("vast.structure.vast.unknown-child", "inline-4.2", before("\n</VAST>", `\n  ${foo}`)),
  c("vast.structure.ad.unknown-child", "inline-4.2", inside('<Ad id="ad-1">')),
  c("vast.structure.inline.unknown-child", "inline-4.2", inside("<InLine>"), inside('<Extension type="brand-safety">')),
  c("vast.structure.wrapper.unknown-child", "wrapper-4.2", after("</AdSystem>", foo)),
  c("vast.structure.creatives.unknown-child", "inline-4.2", inside("<Creatives>")),
  c("vast.structure.creative.inline.unknown-child", "inline-4.2", inside('<Creative id="creative-1" sequence="1" adId="spring-30">')),
  c("vast.structure.creative.wrapper.unknown-child", "wrapper-4.2", inside("<Creative>")),
  c("vast.structure.linear.inline.unknown-child", "inline-4.2", inside('<Linear skipoffset="00:00:05">')),
  c("vast.structure.linear.wrapper.unknown-child", "wrapper-4.2", inside("<Linear>")),
  c("vast.structure.media-files.unknown-child", "inline-4.2", inside("<MediaFiles>")),
  c("vast.structure.video-clicks.unknown-child", "inline-4.2", inside("<VideoClicks>")),
  c("vast.structure.tracking-events.unknown-child", "inline-4.2", before(`<Tracking event="start">`, foo)),
  c("vast.structure.nonlinear-ads.unknown-child", "inline-4.2", inside("<NonLinearAds>")),
  c("vast.structure.nonlinear.inline.unknown-child", "inline-4.2", after('maintainAspectRatio="true">\n              <StaticResource creativeType="image/png"><![CDATA[https://cdn.adserver.net/overlay-480x70.png]]></StaticResource>', foo)),
  c("vast.structure.companion-ads.unknown-child", "inline-4.2", inside('<CompanionAds required="any">')),
  c("vast.structure.companion.unknown-child", "inline-4.2", inside('adSlotId="slot-1">')),
  c("vast.structure.icons.unknown-child", "inline-4.2", inside("<Icons>")),
  c("vast.structure.icon.unknown-child", "inline-4.2", inside('duration="00:00:30">')),
  c("vast.structure.icon-clicks.unknown-child", "inline-4.2", inside("<IconClicks>")),
  c("vast.structure.ad-verifications.unknown-child", "inline-4.2", inside("<AdVerifications>")),
  c("vast.structure.verification.unknown-child", "inline-4.2", inside('<Verification vendor="measure.com-omid">')),
  c("vast.structure.viewable-impression.unknown-child", "inline-4.2", inside('<ViewableImpression id="view-1">')),
  c("vast.structure.extensions.unknown-child", "inline-4.2", inside("<Extensions>")),
  c("vast.structure.creative-extensions.unknown-child", "inline-4.2", after('<Creative id="creative-1" sequence="1" adId="spring-30">', `<CreativeExtensions>${foo}</CreativeExtensions>`), after('<Creative id="creative-1" sequence="1" adId="spring-30">', `<CreativeExtensions><CreativeExtension type="x">${foo}</CreativeExtension></CreativeExtensions>`)),
  c("vast.structure.closed-caption-files.unknown-child", "inline-4.2", inside("<ClosedCaptionFiles>")),
  c("vast.structure.icon-click-fallback-images.unknown-child", "inline-4.2", inside("<IconClickFallbackImages>")),
  c("vast.structure.element-case", "inline-4.2", rep("<AdTitle>Spring campaign</AdTitle>", "<Adtitle>Spring campaign</Adtitle>")),
  c("vast.structure.duplicate-element", "inline-4.2", after("<AdTitle>Spring campaign</AdTitle>", "\n      <AdTitle>Spring campaign</AdTitle>")),
  c("vast.structure.creative.one-kind", "inline-4.2", (d) => after('<Creative id="creative-1" sequence="1" adId="spring-30">', `\n          ${element(d, "CompanionAds")}`)(d)),
  c("vast.root.ad-and-error", "inline-4.2", after("</Ad>", `\n  <Error><![CDATA[${T}/no-ad?code=[ERRORCODE]]]></Error>`)),
  c("vast.structure.namespace", "inline-4.2", setAttr("VAST", "xmlns", "http://www.iab.com/VAST4")),
];

const secondBreak = (a: string, v: string) => setAttr("vmap:AdBreak", a, v, 1);
const vmap: LintCase[] = [
  c("vmap.root.version.required", "vmap", delAttr("vmap:VMAP", "version"), setAttr("vmap:VMAP", "version", "1.0.1")),
  c("vmap.root.version.value", "vmap", setAttr("vmap:VMAP", "version", "2.0"), setAttr("vmap:VMAP", "version", "1.0.1")),
  c("vmap.root.namespace", "vmap", setAttr("vmap:VMAP", "xmlns:vmap", "http://www.iab.net/vmap")),
  c("vmap.root.ad-break.required", "vmap", rep(/<vmap:AdBreak[\s\S]*<\/vmap:AdBreak>/, "")),
  c("vmap.ad-break.time-offset.required", "vmap", delAttr("vmap:AdBreak", "timeOffset"), setAttr("vmap:AdBreak", "timeOffset", "00:00:00.000")),
  c("vmap.ad-break.time-offset.format", "vmap", setAttr("vmap:AdBreak", "timeOffset", "pre"), setAttr("vmap:AdBreak", "timeOffset", "#1")),
  c("vmap.ad-break.break-type.required", "vmap", delAttr("vmap:AdBreak", "breakType"), setAttr("vmap:AdBreak", "breakType", "linear,nonlinear")),
  c("vmap.ad-break.break-type.enum", "vmap", setAttr("vmap:AdBreak", "breakType", "video"), setAttr("vmap:AdBreak", "breakType", "display")),
  c("vmap.ad-break.repeat-after.format", "vmap", secondBreak("repeatAfter", "10m"), secondBreak("repeatAfter", "00:10:00")),
  c("vmap.ad-break.repeat-after.start-end", "vmap", setAttr("vmap:AdBreak", "repeatAfter", "00:10:00"), secondBreak("repeatAfter", "00:10:00")),
  c("vmap.ad-break.ad-source.single", "vmap", (d) => after("</vmap:AdSource>", `\n    ${element(d, "vmap:AdSource")}`)(d)),
  c("vmap.ad-break.break-id.unique", "vmap", secondBreak("breakId", "preroll"), secondBreak("breakId", "midroll-2")),
  c("vmap.ad-break.time-offset.duplicate", "vmap", secondBreak("timeOffset", "start"), secondBreak("timeOffset", "end")),
  c("vmap.ad-source.content", "vmap", after("</vmap:AdTagURI>", '\n      <vmap:CustomAdData templateType="custom"><![CDATA[x]]></vmap:CustomAdData>')),
  c("vmap.ad-source.allow-multiple-ads.boolean", "vmap", setAttr("vmap:AdSource", "allowMultipleAds", "yes"), setAttr("vmap:AdSource", "allowMultipleAds", "true")),
  c("vmap.ad-source.follow-redirects.boolean", "vmap", setAttr("vmap:AdSource", "followRedirects", "yes"), setAttr("vmap:AdSource", "followRedirects", "false")),
  c("vmap.ad-tag-uri.template-type.required", "vmap", delAttr("vmap:AdTagURI", "templateType"), setAttr("vmap:AdTagURI", "templateType", "vast4")),
  c("vmap.ad-tag-uri.template-type.enum", "vmap", setAttr("vmap:AdTagURI", "templateType", "vast9"), setAttr("vmap:AdTagURI", "templateType", "vast2")),
  c("vmap.ad-tag-uri.url", "vmap", rep("<![CDATA[https://ads.adserver.net/vast?slot=preroll]]>", "<![CDATA[vast.xml]]>"), rep("slot=preroll", "slot=pre")),
  c("vmap.ad-tag-uri.cdata", "vmap", rep("<![CDATA[https://ads.adserver.net/vast?slot=preroll]]>", "https://ads.adserver.net/vast?slot=preroll")),
  c("vmap.custom-ad-data.template-type.required", "vmap", rep(/<vmap:AdTagURI[\s\S]*?<\/vmap:AdTagURI>/, "<vmap:CustomAdData><![CDATA[x]]></vmap:CustomAdData>"), rep(/<vmap:AdTagURI[\s\S]*?<\/vmap:AdTagURI>/, '<vmap:CustomAdData templateType="custom"><![CDATA[x]]></vmap:CustomAdData>')),
  c("vmap.vast-ad-data.vast", "vmap", rep(/<vmap:VASTAdData>[\s\S]*<\/vmap:VASTAdData>/, "<vmap:VASTAdData></vmap:VASTAdData>")),
  c("vmap.tracking.event.required", "vmap", rep(' event="breakStart"', ""), rep(' event="breakStart"', ' event="breakEnd"')),
  c("vmap.tracking.event.enum", "vmap", rep(' event="breakStart"', ' event="breakMiddle"'), rep(' event="breakStart"', ' event="breakEnd"')),
  c("vmap.tracking.url", "vmap", rep(`<![CDATA[${T}/break-start]]>`, "<![CDATA[break-start]]>"), rep(`${T}/break-start`, `${T}/break-begin`)),
  c("vmap.tracking.error-code", "vmap", rep("break-error?code=[ERRORCODE]", "break-error"), rep("break-error?code=[ERRORCODE]", "break-error?code=[ERRORCODE]&x=1")),
  c("vmap.structure.unknown-child", "vmap", before("\n</vmap:VMAP>", "\n  <vmap:Foo/>")),
];

export const CASES: readonly LintCase[] = [
  ...required, ...formats, ...conditional, ...deprecated, ...macros, ...urls, ...wrappers, ...pods, ...icons, ...companions,
  ...tracking, ...interactive, ...ctv, ...structure, ...vmap,
  { rule: "vast.vast1.obsolete", base: "vast1", bad: [], good: [], goodBase: "inline-2.0" },
];
