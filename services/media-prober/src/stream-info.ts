import { create } from "@bufbuild/protobuf";
import { AudioInfoSchema, ContainerInfoSchema, VideoInfoSchema, type AudioInfo, type ContainerInfo, type VideoInfo } from "@cva/contracts";
import type { ContainerFacts } from "./container-info.ts";
import type { PacketStats, ProbeFormat, ProbeStream } from "./ffprobe.ts";
import {
  aspectRatio, bitDepth, bitRateMode, definitionOf, displaySize, frameRate, rotationOf, streamBitRate, streamDuration,
} from "./video-info.ts";

/*
 * The container, video and audio facts that come from ffprobe and the packet scan alone, shared by the VAST media
 * probe (prober.ts) and the raw file probe (file-prober.ts); what the passes measure is added by each.
 */

export function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}

/** Container: format and MIME from the file's own brand, moov position, duration (s), bit rate (stated, else size/duration). */
export function containerInfo(format: ProbeFormat, facts: ContainerFacts, moov: string, fileSize: number, fallbackDuration: number): ContainerInfo {
  const duration = Number(format.duration) > 0 ? Number(format.duration) : fallbackDuration;
  const stated = Number(format.bit_rate);
  return create(ContainerInfoSchema, {
    format: facts.format,
    mimeType: facts.mimeType,
    moovAtomPosition: moov,
    duration: round3(duration),
    bitRate: BigInt(
      Number.isFinite(stated) && stated > 0 ? Math.round(stated) : duration > 0 ? Math.round((fileSize * 8) / duration) : 0,
    ),
  });
}

/**
 * Video stream facts without the letterboxing verdict (a pass measures it). `bitRateMeasured` false: neither stated
 * nor derivable from the packets.
 */
export function videoStreamInfo(video: ProbeStream, format: ProbeFormat, packets: PacketStats | undefined): { info: VideoInfo; bitRateMeasured: boolean } {
  const duration = streamDuration(video, format);
  const { width, height } = displaySize(video);
  const rotated = Math.abs(rotationOf(video)) === 90;
  const sar = video.sample_aspect_ratio && video.sample_aspect_ratio !== "0:1" ? video.sample_aspect_ratio : undefined;
  // A quarter-turn rotates the pixel aspect with the picture.
  const displaySar = sar && rotated ? sar.split(":").reverse().join(":") : sar;
  const vp = packets?.byStream.get(video.index);
  const bitRate = streamBitRate(video, duration, vp);
  const info = create(VideoInfoSchema, {
    codec: video.codec_name ?? "",
    profile: video.profile ?? "",
    pixFmt: video.pix_fmt ?? "",
    bitDepth: bitDepth(video),
    bitRate: BigInt(bitRate),
    bitRateMode: bitRateMode(vp),
    frameRate: frameRate(video),
    width,
    height,
    dimensions: width && height ? `${width}x${height}` : "",
    aspectRatio: aspectRatio(width, height, displaySar),
    definition: definitionOf(width, height),
    duration: round3(duration),
    rotation: rotationOf(video),
  });
  return { info, bitRateMeasured: bitRate > 0 };
}

/** Audio stream facts without loudness (a pass measures it). */
export function audioStreamInfo(audio: ProbeStream, format: ProbeFormat, packets: PacketStats | undefined): { info: AudioInfo; bitRateMeasured: boolean } {
  const bitRate = streamBitRate(audio, streamDuration(audio, format), packets?.byStream.get(audio.index));
  const info = create(AudioInfoSchema, {
    codec: audio.codec_name ?? "",
    profile: audio.profile ?? "",
    bitRate: BigInt(bitRate),
    sampleRate: Number(audio.sample_rate) || 0,
    channels: audio.channels ?? 0,
    channelLayout: audio.channel_layout ?? "",
  });
  return { info, bitRateMeasured: bitRate > 0 };
}
