// Every test module, by scope. Static imports keep the package plain ESM (no directory scanning at run time); a test
// checks that every file in the folders is listed here and that each file name equals its test id.
import type { AudioFileTest, ImageFileTest, MediaFileTest, TagTest, VastXmlTest, VideoFileTest, ZipTest } from "../types.ts";
import { animation_duration as tag_animation_duration } from "./tag/animation_duration.ts";
import { blocked_by_adblock as tag_blocked_by_adblock } from "./tag/blocked_by_adblock.ts";
import { console_errors as tag_console_errors } from "./tag/console_errors.ts";
import { cpu_average as tag_cpu_average } from "./tag/cpu_average.ts";
import { cpu_peak as tag_cpu_peak } from "./tag/cpu_peak.ts";
import { cpu_usage as tag_cpu_usage } from "./tag/cpu_usage.ts";
import { creative_border as tag_creative_border } from "./tag/creative_border.ts";
import { dialogs as tag_dialogs } from "./tag/dialogs.ts";
import { document_write as tag_document_write } from "./tag/document_write.ts";
import { heavy_ad_cpu as tag_heavy_ad_cpu } from "./tag/heavy_ad_cpu.ts";
import { heavy_ad_network as tag_heavy_ad_network } from "./tag/heavy_ad_network.ts";
import { heavy_ad_intervention as tag_heavy_ad_intervention } from "./tag/heavy_ad_intervention.ts";
import { host_initiated_subload as tag_host_initiated_subload } from "./tag/host_initiated_subload.ts";
import { iframes as tag_iframes } from "./tag/iframes.ts";
import { initial_load as tag_initial_load } from "./tag/initial_load.ts";
import { measurement_pixels as tag_measurement_pixels } from "./tag/measurement_pixels.ts";
import { memory as tag_memory } from "./tag/memory.ts";
import { missing_assets as tag_missing_assets } from "./tag/missing_assets.ts";
import { network_requests as tag_network_requests } from "./tag/network_requests.ts";
import { ssl as tag_ssl } from "./tag/ssl.ts";
import { time_to_visual_start as tag_time_to_visual_start } from "./tag/time_to_visual_start.ts";
import { no_identifiers_without_consent as tag_no_identifiers_without_consent } from "./tag/no_identifiers_without_consent.ts";
import { no_tracking_without_consent as tag_no_tracking_without_consent } from "./tag/no_tracking_without_consent.ts";
import { consent_macros_filled as tag_consent_macros_filled } from "./tag/consent_macros_filled.ts";
import { approved_vendors_only as tag_approved_vendors_only } from "./tag/approved_vendors_only.ts";
import { exit_name as tag_exit_name } from "./tag/exit_name.ts";
import { image_alt as tag_image_alt } from "./tag/image_alt.ts";
import { motion_pause as tag_motion_pause } from "./tag/motion_pause.ts";
import { photosensitivity as tag_photosensitivity } from "./tag/photosensitivity.ts";
import { text_contrast as tag_text_contrast } from "./tag/text_contrast.ts";
import { error_url as xml_error_url } from "./vast/xml/error_url.ts";
import { mezzanine as xml_mezzanine } from "./vast/xml/mezzanine.ts";
import { tracking_events as xml_tracking_events } from "./vast/xml/tracking_events.ts";
import { universal_ad_id as xml_universal_ad_id } from "./vast/xml/universal_ad_id.ts";
import { unexpanded_macros as xml_unexpanded_macros } from "./vast/xml/unexpanded_macros.ts";
import { vpaid as xml_vpaid } from "./vast/xml/vpaid.ts";
import { captions as xml_captions } from "./vast/xml/captions.ts";
import { xml_schema as xml_xml_schema } from "./vast/xml/xml_schema.ts";
import { tracker_urls as xml_tracker_urls } from "./vast/xml/tracker_urls.ts";
import { om_verifications as xml_om_verifications } from "./vast/xml/om_verifications.ts";
import { simid_handshake as xml_simid_handshake } from "./vast/xml/simid_handshake.ts";
import { lint_required_elements as xml_lint_required_elements } from "./vast/xml/lint_required_elements.ts";
import { lint_value_formats as xml_lint_value_formats } from "./vast/xml/lint_value_formats.ts";
import { lint_conditional_requirements as xml_lint_conditional_requirements } from "./vast/xml/lint_conditional_requirements.ts";
import { lint_deprecated_features as xml_lint_deprecated_features } from "./vast/xml/lint_deprecated_features.ts";
import { lint_macros as xml_lint_macros } from "./vast/xml/lint_macros.ts";
import { lint_urls as xml_lint_urls } from "./vast/xml/lint_urls.ts";
import { lint_wrappers as xml_lint_wrappers } from "./vast/xml/lint_wrappers.ts";
import { lint_pods as xml_lint_pods } from "./vast/xml/lint_pods.ts";
import { lint_icons as xml_lint_icons } from "./vast/xml/lint_icons.ts";
import { lint_companions as xml_lint_companions } from "./vast/xml/lint_companions.ts";
import { lint_tracking_events as xml_lint_tracking_events } from "./vast/xml/lint_tracking_events.ts";
import { lint_interactive as xml_lint_interactive } from "./vast/xml/lint_interactive.ts";
import { lint_ctv as xml_lint_ctv } from "./vast/xml/lint_ctv.ts";
import { lint_structure as xml_lint_structure } from "./vast/xml/lint_structure.ts";
import { lint_vmap as xml_lint_vmap } from "./vast/xml/lint_vmap.ts";
import { ad_system as xml_ad_system } from "./vast/xml/ad_system.ts";
import { cors as xml_cors } from "./vast/xml/cors.ts";
import { creative_count as xml_creative_count } from "./vast/xml/creative_count.ts";
import { impression_present as xml_impression_present } from "./vast/xml/impression_present.ts";
import { playable_creatives as xml_playable_creatives } from "./vast/xml/playable_creatives.ts";
import { ssl as xml_ssl } from "./vast/xml/ssl.ts";
import { vast_version as xml_vast_version } from "./vast/xml/vast_version.ts";
import { wrapper_chain as xml_wrapper_chain } from "./vast/xml/wrapper_chain.ts";
import { wrapper_redirects as xml_wrapper_redirects } from "./vast/xml/wrapper_redirects.ts";
import { xml_content_type as xml_xml_content_type } from "./vast/xml/xml_content_type.ts";
import { xml_file_size as xml_xml_file_size } from "./vast/xml/xml_file_size.ts";
import { xml_http_code as xml_xml_http_code } from "./vast/xml/xml_http_code.ts";
import { xml_load_time as xml_xml_load_time } from "./vast/xml/xml_load_time.ts";
import { allowed_file_types as zip_allowed_file_types } from "./zip/allowed_file_types.ts";
import { backup_ad as zip_backup_ad } from "./zip/backup_ad.ts";
import { click_tag as zip_click_tag } from "./zip/click_tag.ts";
import { external_assets as zip_external_assets } from "./zip/external_assets.ts";
import { image_optimization as zip_image_optimization } from "./zip/image_optimization.ts";
import { meta_ad_size as zip_meta_ad_size } from "./zip/meta_ad_size.ts";
import { minified as zip_minified } from "./zip/minified.ts";
import { unzipped_size as zip_unzipped_size } from "./zip/unzipped_size.ts";
import { zip_file_count as zip_zip_file_count } from "./zip/zip_file_count.ts";
import { zip_size as zip_zip_size } from "./zip/zip_size.ts";
import { audio_bit_rate as mf_audio_bit_rate } from "./vast/mediafile/audio_bit_rate.ts";
import { audio_channels as mf_audio_channels } from "./vast/mediafile/audio_channels.ts";
import { audio_sample_rate as mf_audio_sample_rate } from "./vast/mediafile/audio_sample_rate.ts";
import { duration_match as mf_duration_match } from "./vast/mediafile/duration_match.ts";
import { file_size as mf_file_size } from "./vast/mediafile/file_size.ts";
import { http_code as mf_http_code } from "./vast/mediafile/http_code.ts";
import { loudness as mf_loudness } from "./vast/mediafile/loudness.ts";
import { moov_atom as mf_moov_atom } from "./vast/mediafile/moov_atom.ts";
import { playable as mf_playable } from "./vast/mediafile/playable.ts";
import { photosensitivity as mf_photosensitivity } from "./vast/mediafile/photosensitivity.ts";
import { video_bit_rate as mf_video_bit_rate } from "./vast/mediafile/video_bit_rate.ts";
import { constant_frame_rate as video_constant_frame_rate } from "./video/constant_frame_rate.ts";
import { ctv_bit_rate as video_ctv_bit_rate } from "./video/ctv_bit_rate.ts";
import { ctv_resolution as video_ctv_resolution } from "./video/ctv_resolution.ts";
import { duration as video_duration } from "./video/duration.ts";
import { faststart as video_faststart } from "./video/faststart.ts";
import { frame_rate as video_frame_rate } from "./video/frame_rate.ts";
import { leading_black as video_leading_black } from "./video/leading_black.ts";
import { captions as video_captions } from "./video/captions.ts";
import { photosensitivity as video_photosensitivity } from "./video/photosensitivity.ts";
import { leading_silence as video_leading_silence } from "./video/leading_silence.ts";
import { letterboxing as video_letterboxing } from "./video/letterboxing.ts";
import { loudness as video_loudness } from "./video/loudness.ts";
import { pillarboxing as video_pillarboxing } from "./video/pillarboxing.ts";
import { progressive as video_progressive } from "./video/progressive.ts";
import { sample_rate as video_sample_rate } from "./video/sample_rate.ts";
import { trailing_black as video_trailing_black } from "./video/trailing_black.ts";
import { trailing_silence as video_trailing_silence } from "./video/trailing_silence.ts";
import { true_peak as video_true_peak } from "./video/true_peak.ts";
import { clipping as audio_clipping } from "./audio/clipping.ts";
import { leading_silence as audio_leading_silence } from "./audio/leading_silence.ts";
import { loudness as audio_loudness } from "./audio/loudness.ts";
import { sample_rate as audio_sample_rate } from "./audio/sample_rate.ts";
import { trailing_silence as audio_trailing_silence } from "./audio/trailing_silence.ts";
import { true_peak as audio_true_peak } from "./audio/true_peak.ts";
import { animation_length as image_animation_length } from "./image/animation_length.ts";
import { animation_loops as image_animation_loops } from "./image/animation_loops.ts";
import { iab_size as image_iab_size } from "./image/iab_size.ts";
import { image_weight as image_image_weight } from "./image/image_weight.ts";

export const tagTests: ReadonlyMap<string, TagTest> = new Map(
  [
    tag_animation_duration,
    tag_blocked_by_adblock,
    tag_console_errors,
    tag_cpu_usage,
    tag_cpu_average,
    tag_cpu_peak,
    tag_creative_border,
    tag_dialogs,
    tag_document_write,
    tag_heavy_ad_cpu,
    tag_heavy_ad_network,
    tag_heavy_ad_intervention,
    tag_host_initiated_subload,
    tag_iframes,
    tag_initial_load,
    tag_measurement_pixels,
    tag_memory,
    tag_missing_assets,
    tag_network_requests,
    tag_ssl,
    tag_time_to_visual_start,
    tag_no_identifiers_without_consent,
    tag_no_tracking_without_consent,
    tag_consent_macros_filled,
    tag_approved_vendors_only,
    tag_photosensitivity,
    tag_motion_pause,
    tag_image_alt,
    tag_exit_name,
    tag_text_contrast,
  ].map((t) => [t.meta.id, t]),
);

export const vastXmlTests: ReadonlyMap<string, VastXmlTest> = new Map(
  [
    xml_ad_system,
    xml_cors,
    xml_creative_count,
    xml_impression_present,
    xml_playable_creatives,
    xml_ssl,
    xml_vast_version,
    xml_wrapper_chain,
    xml_wrapper_redirects,
    xml_xml_content_type,
    xml_xml_file_size,
    xml_xml_http_code,
    xml_xml_load_time,
    xml_error_url,
    xml_mezzanine,
    xml_tracking_events,
    xml_universal_ad_id,
    xml_unexpanded_macros,
    xml_vpaid,
    xml_xml_schema,
    xml_tracker_urls,
    xml_om_verifications,
    xml_simid_handshake,
    xml_lint_required_elements,
    xml_lint_value_formats,
    xml_lint_conditional_requirements,
    xml_lint_deprecated_features,
    xml_lint_macros,
    xml_lint_urls,
    xml_lint_wrappers,
    xml_lint_pods,
    xml_lint_icons,
    xml_lint_companions,
    xml_lint_tracking_events,
    xml_lint_interactive,
    xml_lint_ctv,
    xml_lint_structure,
    xml_lint_vmap,
    xml_captions,
  ].map((t) => [t.meta.id, t]),
);

export const mediaFileTests: ReadonlyMap<string, MediaFileTest> = new Map(
  [
    mf_audio_bit_rate,
    mf_audio_channels,
    mf_audio_sample_rate,
    mf_duration_match,
    mf_file_size,
    mf_http_code,
    mf_loudness,
    mf_moov_atom,
    mf_playable,
    mf_photosensitivity,
    mf_video_bit_rate,
  ].map((t) => [t.meta.id, t]),
);

export const zipTests: ReadonlyMap<string, ZipTest> = new Map(
  [
    zip_allowed_file_types,
    zip_backup_ad,
    zip_click_tag,
    zip_external_assets,
    zip_image_optimization,
    zip_meta_ad_size,
    zip_minified,
    zip_unzipped_size,
    zip_zip_file_count,
    zip_zip_size,
  ].map((t) => [t.meta.id, t]),
);

export const videoFileTests: ReadonlyMap<string, VideoFileTest> = new Map(
  [
    video_captions,
    video_constant_frame_rate,
    video_ctv_bit_rate,
    video_ctv_resolution,
    video_duration,
    video_faststart,
    video_frame_rate,
    video_leading_black,
    video_leading_silence,
    video_letterboxing,
    video_loudness,
    video_photosensitivity,
    video_pillarboxing,
    video_progressive,
    video_sample_rate,
    video_trailing_black,
    video_trailing_silence,
    video_true_peak,
  ].map((t) => [t.meta.id, t]),
);

export const imageFileTests: ReadonlyMap<string, ImageFileTest> = new Map(
  [
    image_animation_length,
    image_animation_loops,
    image_iab_size,
    image_image_weight,
  ].map((t) => [t.meta.id, t]),
);

export const audioFileTests: ReadonlyMap<string, AudioFileTest> = new Map(
  [
    audio_clipping,
    audio_leading_silence,
    audio_loudness,
    audio_sample_rate,
    audio_trailing_silence,
    audio_true_peak,
  ].map((t) => [t.meta.id, t]),
);
