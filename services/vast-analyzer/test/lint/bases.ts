// Base documents of the per-rule corpus: one clean InLine and one clean Wrapper per VAST version, a clean VMAP and a
// VAST 1.0 document. "Clean" means the linter finds nothing at all in them, not even info: each rule's case then
// mutates a base and expects exactly that rule's finding (corpus.test.ts). Hosts are production-looking names that do
// not exist (the linter never resolves them).

export type VastV = "2.0" | "3.0" | "4.0" | "4.1" | "4.2" | "4.3";
export type BaseName = `inline-${VastV}` | `wrapper-${VastV}` | "vmap" | "vast1";

const at = (v: VastV, from: VastV) => Number(v) >= Number(from);
const T = "https://track.adserver.net";
const CDN = "https://cdn.adserver.net";
const cd = (url: string) => `<![CDATA[${url}]]>`;

function errorUrl(v: VastV): string {
  return cd(`${T}/error?code=${at(v, "3.0") ? "[ERRORCODE]" : "0"}`);
}
function impressionUrl(v: VastV, who = "imp"): string {
  return cd(`${T}/${who}?cb=${at(v, "3.0") ? "[CACHEBUSTING]" : "1"}`);
}
function uid(v: VastV, value: string): string {
  if (!at(v, "4.0")) return "";
  return v === "4.0"
    ? `<UniversalAdId idRegistry="Ad-ID" idValue="${value}">${value}</UniversalAdId>`
    : `<UniversalAdId idRegistry="Ad-ID">${value}</UniversalAdId>`;
}

export function inlineDoc(v: VastV): string {
  const ns = at(v, "4.0") ? ' xmlns="http://www.iab.com/VAST"' : "";
  const adId = at(v, "3.0") ? "adId" : "AdID";
  const tracking = ["start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]
    .map((e) => `<Tracking event="${e}">${cd(`${T}/${e}`)}</Tracking>`)
    .join("\n              ");
  const progress = at(v, "3.0") ? `\n              <Tracking event="progress" offset="00:00:10.000">${cd(`${T}/progress-10`)}</Tracking>` : "";
  const rendition = (w: number, h: number, kbps: number) =>
    `<MediaFile id="mf-${h}" delivery="progressive" type="video/mp4" width="${w}" height="${h}" bitrate="${kbps}" scalable="true" maintainAspectRatio="true"${at(v, "3.0") ? ' codec="avc1.640028"' : ""}>${cd(`${CDN}/spring-${h}.mp4`)}</MediaFile>`;
  const mezzanine = at(v, "4.0") ? `\n              <Mezzanine delivery="progressive" type="video/mp4" width="1920" height="1080">${cd(`${CDN}/spring-mezzanine.mp4`)}</Mezzanine>` : "";
  const captions = at(v, "4.1") ? `\n              <ClosedCaptionFiles><ClosedCaptionFile type="text/vtt" language="en">${cd(`${CDN}/spring.vtt`)}</ClosedCaptionFile></ClosedCaptionFiles>` : "";
  const fallback = at(v, "4.2")
    ? `\n                  <IconClickFallbackImages><IconClickFallbackImage width="300" height="250"><AltText>AdChoices notice</AltText><StaticResource creativeType="image/png">${cd(`${CDN}/adchoices-notice.png`)}</StaticResource></IconClickFallbackImage></IconClickFallbackImages>`
    : "";
  const icons = at(v, "3.0")
    ? `
            <Icons>
              <Icon program="AdChoices" width="20" height="20" xPosition="right" yPosition="top" offset="00:00:00" duration="00:00:30">
                <StaticResource creativeType="image/png">${cd(`${CDN}/adchoices.png`)}</StaticResource>
                <IconClicks>${fallback}
                  <IconClickThrough>${cd("https://optout.aboutads.info/")}</IconClickThrough>
                  <IconClickTracking>${cd(`${T}/icon-click`)}</IconClickTracking>
                </IconClicks>
              </Icon>
            </Icons>`
    : "";
  const verification = at(v, "4.1")
    ? `
      <AdVerifications>
        <Verification vendor="measure.com-omid">
          <JavaScriptResource apiFramework="omid" browserOptional="true">${cd("https://cdn.measure.net/omid-validation.js")}</JavaScriptResource>
          <VerificationParameters>${cd('{"campaign":"spring"}')}</VerificationParameters>
          <TrackingEvents><Tracking event="verificationNotExecuted">${cd("https://track.measure.net/not-executed?reason=[REASON]")}</Tracking></TrackingEvents>
        </Verification>
      </AdVerifications>`
    : "";
  const v3Extras = at(v, "3.0") ? `\n      <Advertiser>Spring Brand</Advertiser>\n      <Pricing model="${v === "3.0" ? "cpm" : "CPM"}" currency="USD">25.00</Pricing>` : "";
  const v4Extras = at(v, "4.0")
    ? `\n      <Category authority="https://iabtechlab.com">IAB1-1</Category>\n      <ViewableImpression id="view-1"><Viewable>${cd(`${T}/viewable`)}</Viewable><NotViewable>${cd(`${T}/not-viewable`)}</NotViewable><ViewUndetermined>${cd(`${T}/view-undetermined`)}</ViewUndetermined></ViewableImpression>`
    : "";
  const v41Extras = at(v, "4.1") ? `\n      <AdServingId>srv-0001</AdServingId>\n      <Expires>3600</Expires>` : "";
  const companionTracking = at(v, "3.0") ? `\n              <CompanionClickTracking id="comp-click">${cd(`${T}/companion-click`)}</CompanionClickTracking>` : "";
  const nonLinearTracking = at(v, "3.0") ? `\n              <NonLinearClickTracking id="overlay-click">${cd(`${T}/overlay-click`)}</NonLinearClickTracking>` : "";
  return `<?xml version="1.0" encoding="UTF-8"?>
<VAST version="${v}"${ns}>
  <Ad id="ad-1">
    <InLine>
      <AdSystem version="2.1">CVA Ad Server</AdSystem>
      <AdTitle>Spring campaign</AdTitle>
      <Description>Spring campaign, 30 s</Description>${v3Extras}${v4Extras}${v41Extras}
      <Error>${errorUrl(v)}</Error>
      <Impression id="imp-1">${impressionUrl(v)}</Impression>${verification}
      <Creatives>
        <Creative id="creative-1" sequence="1" ${adId}="spring-30">
          ${uid(v, "ABCD1234567H")}
          <Linear${at(v, "3.0") ? ' skipoffset="00:00:05"' : ""}>
            <Duration>00:00:30.000</Duration>
            <TrackingEvents>
              ${tracking}${progress}
            </TrackingEvents>
            <VideoClicks>
              <ClickThrough id="click-through">${cd("https://www.spring-brand.com/landing")}</ClickThrough>
              <ClickTracking id="click">${cd(`${T}/click`)}</ClickTracking>
            </VideoClicks>
            <MediaFiles>
              ${rendition(1920, 1080, 4000)}
              ${rendition(1280, 720, 2000)}
              ${rendition(640, 360, 800)}${mezzanine}${captions}
            </MediaFiles>${icons}
          </Linear>
        </Creative>
        <Creative id="creative-2" sequence="2">
          ${uid(v, "ABCD1234568H")}
          <CompanionAds${at(v, "3.0") ? ' required="any"' : ""}>
            <Companion id="companion-1" width="300" height="250"${at(v, "3.0") ? ' adSlotId="slot-1"' : ""}>
              <StaticResource creativeType="image/png">${cd(`${CDN}/companion-300x250.png`)}</StaticResource>
              <TrackingEvents><Tracking event="creativeView">${cd(`${T}/companion-view`)}</Tracking></TrackingEvents>
              <CompanionClickThrough>${cd("https://www.spring-brand.com/landing")}</CompanionClickThrough>${companionTracking}
              <AltText>Spring campaign banner</AltText>
            </Companion>
          </CompanionAds>
        </Creative>
        <Creative id="creative-3" sequence="3">
          ${uid(v, "ABCD1234569H")}
          <NonLinearAds>
            <NonLinear id="overlay-1" width="480" height="70" minSuggestedDuration="00:00:10" scalable="true" maintainAspectRatio="true">
              <StaticResource creativeType="image/png">${cd(`${CDN}/overlay-480x70.png`)}</StaticResource>
              <NonLinearClickThrough>${cd("https://www.spring-brand.com/landing")}</NonLinearClickThrough>${nonLinearTracking}
            </NonLinear>
          </NonLinearAds>
        </Creative>
      </Creatives>
      <Extensions>
        <Extension type="brand-safety"><Score>0.98</Score></Extension>
      </Extensions>
    </InLine>
  </Ad>
</VAST>
`;
}

export function wrapperDoc(v: VastV): string {
  const ns = at(v, "4.0") ? ' xmlns="http://www.iab.com/VAST"' : "";
  const attrs = at(v, "4.0") ? ' followAdditionalWrappers="true" allowMultipleAds="false" fallbackOnNoAd="true"' : "";
  const tracking = ["start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]
    .map((e) => `<Tracking event="${e}">${cd(`${T}/wrapper-${e}`)}</Tracking>`)
    .join("\n              ");
  return `<?xml version="1.0" encoding="UTF-8"?>
<VAST version="${v}"${ns}>
  <Ad id="wrapper-1">
    <Wrapper${attrs}>
      <AdSystem version="1.4">CVA Exchange</AdSystem>
      <VASTAdTagURI>${cd(`https://ads.adserver.net/vast?slot=preroll${at(v, "3.0") ? "&cb=[CACHEBUSTING]" : ""}`)}</VASTAdTagURI>
      <Error>${errorUrl(v)}</Error>
      <Impression>${impressionUrl(v, "wrapper-imp")}</Impression>
      <Creatives>
        <Creative>
          <Linear>
            <TrackingEvents>
              ${tracking}
            </TrackingEvents>
            <VideoClicks>
              <ClickTracking>${cd(`${T}/wrapper-click`)}</ClickTracking>
            </VideoClicks>
          </Linear>
        </Creative>
      </Creatives>
    </Wrapper>
  </Ad>
</VAST>
`;
}

export function vmapDoc(): string {
  const embedded = inlineDoc("3.0").replace(/^<\?xml[^>]*>\s*/, "").replace(/\n/g, "\n          ");
  return `<?xml version="1.0" encoding="UTF-8"?>
<vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
  <vmap:AdBreak timeOffset="start" breakType="linear" breakId="preroll">
    <vmap:AdSource id="preroll-source" allowMultipleAds="false" followRedirects="true">
      <vmap:AdTagURI templateType="vast3"><![CDATA[https://ads.adserver.net/vast?slot=preroll]]></vmap:AdTagURI>
    </vmap:AdSource>
    <vmap:TrackingEvents>
      <vmap:Tracking event="breakStart"><![CDATA[${T}/break-start]]></vmap:Tracking>
      <vmap:Tracking event="error"><![CDATA[${T}/break-error?code=[ERRORCODE]]]></vmap:Tracking>
    </vmap:TrackingEvents>
  </vmap:AdBreak>
  <vmap:AdBreak timeOffset="00:10:00.000" breakType="linear" breakId="midroll-1">
    <vmap:AdSource id="midroll-source" allowMultipleAds="true" followRedirects="true">
      <vmap:VASTAdData>
          ${embedded}
      </vmap:VASTAdData>
    </vmap:AdSource>
  </vmap:AdBreak>
</vmap:VMAP>
`;
}

export function vast1Doc(): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<VideoAdServingTemplate>
  <Ad id="legacy-1">
    <InLine>
      <AdSystem>CVA Ad Server</AdSystem>
      <AdTitle>Legacy</AdTitle>
      <Impression><URL><![CDATA[${T}/imp]]></URL></Impression>
      <Video>
        <Duration>00:00:15</Duration>
        <MediaFiles><MediaFile delivery="progressive" bitrate="800" width="640" height="360" type="video/mp4"><URL><![CDATA[${CDN}/legacy.mp4]]></URL></MediaFile></MediaFiles>
      </Video>
    </InLine>
  </Ad>
</VideoAdServingTemplate>
`;
}

export const VERSIONS: readonly VastV[] = ["2.0", "3.0", "4.0", "4.1", "4.2", "4.3"];

export function baseDoc(name: BaseName): string {
  if (name === "vmap") return vmapDoc();
  if (name === "vast1") return vast1Doc();
  const [kind, v] = name.split("-") as ["inline" | "wrapper", VastV];
  return kind === "inline" ? inlineDoc(v) : wrapperDoc(v);
}
