import type { Metadata } from 'sharp';
import { fileTypeFromBuffer, loadSharp } from '../../core/runtime/format-libraries.js';
import { ApiError, BadInput } from '../../core/errors.js';

/**
 * What the image library does for the Images area: decides whether bytes are an image we accept
 * (from the bytes, never the name or the client's header), and makes renditions (crop, aspect
 * trim, resize to fit) with sharp. The original bytes are never changed.
 */

/** The image formats accepted, by the media type detected from the bytes. SVG is refused (not sanitized). */
export const ACCEPTED_IMAGE_TYPES: Record<string, { format: 'jpeg' | 'png' | 'gif' | 'webp'; extensions: string[] }> = {
  'image/jpeg': { format: 'jpeg', extensions: ['jpg', 'jpeg', 'jpe', 'jfif'] },
  'image/png': { format: 'png', extensions: ['png'] },
  'image/gif': { format: 'gif', extensions: ['gif'] },
  'image/webp': { format: 'webp', extensions: ['webp'] },
};

/** Largest image accepted, in pixels (per frame): keeps decompression bombs out. */
export const IMAGE_MAX_PIXELS = 60_000_000;

/** What an accepted image is. Width and height are as displayed (after EXIF orientation), per frame. */
export interface ImageFacts {
  mediaType: string;
  format: 'jpeg' | 'png' | 'gif' | 'webp';
  extension: string;
  width: number;
  height: number;
  /** EXIF orientation 2-8 means the stored pixels must be turned to display. */
  orientation: number;
  animated: boolean;
}

export class UnsupportedImage extends ApiError {
  constructor(detail: string) {
    super(415, 'UNSUPPORTED_MEDIA_TYPE', detail);
  }
}

export class ImageTooLarge extends ApiError {
  constructor(detail: string) {
    super(413, 'PAYLOAD_TOO_LARGE', detail);
  }
}

const ACCEPTED_LIST = 'JPEG, PNG, GIF or WebP';

/**
 * Checks that `bytes` are a complete image of an accepted type and answers its facts:
 * 415 for anything else (including SVG, an image header over other content, a truncated file),
 * 413 for an image over IMAGE_MAX_PIXELS.
 */
export async function inspectImage(bytes: Buffer): Promise<ImageFacts> {
  const detected = await fileTypeFromBuffer(bytes);
  const accepted = detected ? ACCEPTED_IMAGE_TYPES[detected.mime] : undefined;
  if (!detected || !accepted) {
    throw new UnsupportedImage(`Only ${ACCEPTED_LIST} images are accepted; the file's content is ${detected ? detected.mime : 'not a recognized image'}.`);
  }
  const facts = await readFacts(bytes, detected.mime);
  if (!facts) throw new UnsupportedImage(`The file starts like ${detected.mime} but is not a valid image.`);
  try {
    // Decode all of it (scaled down): a truncated or corrupt image fails here, not when served.
    const sharp = await loadSharp();
    await sharp(bytes, { limitInputPixels: IMAGE_MAX_PIXELS }).resize(32, 32, { fit: 'inside' }).raw().toBuffer();
  } catch (error) {
    throw decodeFailure(error, detected.mime);
  }
  return facts;
}

/** The facts of bytes already accepted (stored files): no full decode. */
export async function imageFacts(bytes: Buffer): Promise<ImageFacts> {
  const detected = await fileTypeFromBuffer(bytes);
  const facts = detected && ACCEPTED_IMAGE_TYPES[detected.mime] ? await readFacts(bytes, detected.mime) : null;
  if (!facts) throw new UnsupportedImage(`The file is not a ${ACCEPTED_LIST} image.`);
  return facts;
}

async function readFacts(bytes: Buffer, mediaType: string): Promise<ImageFacts | null> {
  const accepted = ACCEPTED_IMAGE_TYPES[mediaType];
  let metadata: Metadata;
  try {
    const sharp = await loadSharp();
    metadata = await sharp(bytes, { limitInputPixels: IMAGE_MAX_PIXELS }).metadata();
  } catch (error) {
    throw decodeFailure(error, mediaType);
  }
  // The bytes must decode as the type their signature claims.
  if (metadata.format !== accepted.format || !metadata.width || !metadata.height) return null;
  const orientation = metadata.orientation ?? 1;
  const turned = orientation >= 5 && orientation <= 8;
  return {
    mediaType,
    format: accepted.format,
    extension: accepted.extensions[0],
    width: turned ? metadata.height : metadata.width,
    height: turned ? metadata.width : metadata.height,
    orientation,
    animated: (metadata.pages ?? 1) > 1,
  };
}

function decodeFailure(error: unknown, mediaType: string): ApiError {
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(message)) return new ImageTooLarge(`The image is larger than ${IMAGE_MAX_PIXELS / 1_000_000} megapixels.`);
  return new UnsupportedImage(`The file starts like ${mediaType} but is not a valid image.`);
}

/** A crop rectangle in displayed pixels, as given (CropX, CropY, CropWidth, CropHeight). */
export interface Crop {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface RenditionPlan {
  crop: Crop | null;
  /** Width/height the result must have (trimmed around the centre of the crop); null keeps it. */
  aspect: number | null;
  maxWidth: number | null;
  maxHeight: number | null;
}

export interface Rendition {
  bytes: Buffer;
  width: number;
  height: number;
}

/** The region of the displayed image a plan keeps; a crop outside the image is a 400 naming the field. */
export function planRegion(facts: Pick<ImageFacts, 'width' | 'height'>, plan: Pick<RenditionPlan, 'crop' | 'aspect'>): Crop {
  let region: Crop = { x: 0, y: 0, width: facts.width, height: facts.height };
  if (plan.crop) {
    const { x, y } = plan.crop;
    if (x >= facts.width) throw BadInput.field('CropX', `must be less than the image width (${facts.width})`);
    if (y >= facts.height) throw BadInput.field('CropY', `must be less than the image height (${facts.height})`);
    // One pixel of rounding slack (croppers send fractions); more than that is outside the image.
    if (x + plan.crop.width > facts.width + 1) throw BadInput.field('CropWidth', `reaches past the image width (${facts.width})`);
    if (y + plan.crop.height > facts.height + 1) throw BadInput.field('CropHeight', `reaches past the image height (${facts.height})`);
    region = { x, y, width: Math.min(plan.crop.width, facts.width - x), height: Math.min(plan.crop.height, facts.height - y) };
  }
  if (plan.aspect) {
    const current = region.width / region.height;
    if (current > plan.aspect * 1.005) {
      const width = Math.max(1, Math.round(region.height * plan.aspect));
      region = { ...region, x: region.x + Math.floor((region.width - width) / 2), width };
    } else if (current < plan.aspect / 1.005) {
      const height = Math.max(1, Math.round(region.width / plan.aspect));
      region = { ...region, y: region.y + Math.floor((region.height - height) / 2), height };
    }
  }
  return region;
}

/**
 * The rendition a plan makes of an image, in the image's own format; null when the original can
 * be served as it is (no crop, nothing to trim or shrink, no EXIF turn).
 */
export async function renderImage(bytes: Buffer, facts: ImageFacts, plan: RenditionPlan): Promise<Rendition | null> {
  const region = planRegion(facts, plan);
  const whole = region.x === 0 && region.y === 0 && region.width === facts.width && region.height === facts.height;
  const tooWide = plan.maxWidth !== null && region.width > plan.maxWidth;
  const tooTall = plan.maxHeight !== null && region.height > plan.maxHeight;
  if (whole && !tooWide && !tooTall && facts.orientation === 1) return null;

  const sharp = await loadSharp();
  let pipeline = sharp(bytes, { limitInputPixels: IMAGE_MAX_PIXELS, animated: facts.animated }).autoOrient();
  if (!whole) pipeline = pipeline.extract({ left: region.x, top: region.y, width: region.width, height: region.height });
  if (tooWide || tooTall) {
    pipeline = pipeline.resize({ width: plan.maxWidth ?? undefined, height: plan.maxHeight ?? undefined, fit: 'inside', withoutEnlargement: true });
  }
  switch (facts.format) {
    case 'jpeg': pipeline = pipeline.jpeg({ quality: 85 }); break;
    case 'png': pipeline = pipeline.png(); break;
    case 'webp': pipeline = pipeline.webp({ quality: 85 }); break;
    case 'gif': pipeline = pipeline.gif(); break;
  }
  try {
    const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
    return { bytes: data, width: info.width, height: info.pageHeight ?? info.height };
  } catch (error) {
    throw decodeFailure(error, facts.mediaType);
  }
}

/**
 * A safe file name for stored bytes: the base name without path or control characters, with
 * an extension that matches the detected type (`photo.exe` holding a PNG is stored `photo.png`).
 */
export function imageFileName(given: string | null | undefined, facts: Pick<ImageFacts, 'mediaType' | 'extension'>): string {
  const base = (given ?? '').replace(/\\/g, '/').split('/').pop()!
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f"<>|*?:]/g, '').trim().replace(/[. ]+$/, '');
  const dot = base.lastIndexOf('.');
  const stem = (dot > 0 ? base.slice(0, dot) : base).slice(0, 200) || 'image';
  const givenExtension = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  const extension = ACCEPTED_IMAGE_TYPES[facts.mediaType]?.extensions.includes(givenExtension) ? givenExtension : facts.extension;
  return `${stem}.${extension}`;
}

/** A plain PNG of one colour (demo data). */
export async function demoPng(width: number, height: number, background: string): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp({ create: { width, height, channels: 3, background } }).png().toBuffer();
}
