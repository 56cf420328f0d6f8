/**
 * A minimal H.264 (ITU-T H.264 / ISO 14496-10) encoder in plain TypeScript for
 * the simulator's videos: Constrained Baseline profile, CAVLC, one slice per
 * frame. The first frame is an IDR picture whose macroblocks are all I_PCM
 * (the samples stored uncompressed, §7.3.5); each later frame is a P picture
 * where unchanged macroblocks are P_Skip (copied from the previous frame) and
 * changed ones are I_PCM again. No transform, no entropy tables, no motion
 * search — a few hundred lines that every H.264 decoder plays, because I_PCM
 * and P_Skip are mandatory in every profile.
 *
 * Frames are given as indexed pixels plus a palette (the simulator draws that
 * way); samples are BT.601 limited range, so a PCM sample is never 0.
 */

/** Writes bits MSB first; Exp-Golomb codes (§9.1). */
class BitWriter {
  private buf = new Uint8Array(1024);
  private len = 0; // bytes complete
  private cur = 0; // bits pending in `acc`
  private acc = 0;

  private ensure(extra: number) {
    if (this.len + extra <= this.buf.length) return;
    let n = this.buf.length * 2;
    while (n < this.len + extra) n *= 2;
    const b = new Uint8Array(n);
    b.set(this.buf.subarray(0, this.len));
    this.buf = b;
  }

  u(bits: number, value: number) {
    for (let i = bits - 1; i >= 0; i--) {
      this.acc = (this.acc << 1) | ((value >>> i) & 1);
      if (++this.cur === 8) {
        this.ensure(1);
        this.buf[this.len++] = this.acc;
        this.acc = 0;
        this.cur = 0;
      }
    }
  }

  ue(value: number) {
    const v = value + 1;
    const n = 31 - Math.clz32(v);
    this.u(n, 0);
    this.u(n + 1, v);
  }

  se(value: number) {
    this.ue(value <= 0 ? -2 * value : 2 * value - 1);
  }

  get aligned() {
    return this.cur === 0;
  }

  alignZero() {
    while (this.cur !== 0) this.u(1, 0);
  }

  /** Raw bytes; the writer must be byte-aligned. */
  bytes(b: Uint8Array) {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  /** rbsp_trailing_bits(): a 1, then zeros to the byte boundary. */
  trailing(): Uint8Array {
    this.u(1, 1);
    this.alignZero();
    return this.buf.subarray(0, this.len);
  }
}

/** NAL unit: header byte + RBSP with emulation prevention (0x000003) inserted (§7.4.1). */
function nal(refIdc: number, type: number, rbsp: Uint8Array): Uint8Array {
  const out = new Uint8Array(1 + rbsp.length + Math.ceil(rbsp.length / 2) + 1);
  out[0] = (refIdc << 5) | type;
  let o = 1;
  let zeros = 0;
  for (let i = 0; i < rbsp.length; i++) {
    const b = rbsp[i]!;
    if (zeros >= 2 && b <= 3) {
      out[o++] = 3;
      zeros = 0;
    }
    out[o++] = b;
    zeros = b === 0 ? zeros + 1 : 0;
  }
  return out.subarray(0, o);
}

const LOG2_MAX_FRAME_NUM = 8;
const PROFILE_IDC = 66; // Baseline
const CONSTRAINTS = 0xc0; // constraint_set0 + constraint_set1: Constrained Baseline
const LEVEL_IDC = 30; // 3.0: up to 1,620 macroblocks a frame, 40,500 a second

function sps(mbW: number, mbH: number): Uint8Array {
  const w = new BitWriter();
  w.u(8, PROFILE_IDC);
  w.u(8, CONSTRAINTS);
  w.u(8, LEVEL_IDC);
  w.ue(0); // seq_parameter_set_id
  w.ue(LOG2_MAX_FRAME_NUM - 4);
  w.ue(2); // pic_order_cnt_type 2: output order = decoding order
  w.ue(1); // max_num_ref_frames
  w.u(1, 0); // gaps_in_frame_num_value_allowed_flag
  w.ue(mbW - 1);
  w.ue(mbH - 1);
  w.u(1, 1); // frame_mbs_only_flag
  w.u(1, 1); // direct_8x8_inference_flag
  w.u(1, 0); // frame_cropping_flag
  w.u(1, 0); // vui_parameters_present_flag
  return nal(3, 7, w.trailing());
}

function pps(): Uint8Array {
  const w = new BitWriter();
  w.ue(0); // pic_parameter_set_id
  w.ue(0); // seq_parameter_set_id
  w.u(1, 0); // entropy_coding_mode_flag: CAVLC
  w.u(1, 0); // bottom_field_pic_order_in_frame_present_flag
  w.ue(0); // num_slice_groups_minus1
  w.ue(0); // num_ref_idx_l0_default_active_minus1
  w.ue(0); // num_ref_idx_l1_default_active_minus1
  w.u(1, 0); // weighted_pred_flag
  w.u(2, 0); // weighted_bipred_idc
  w.se(0); // pic_init_qp_minus26
  w.se(0); // pic_init_qs_minus26
  w.se(0); // chroma_qp_index_offset
  w.u(1, 1); // deblocking_filter_control_present_flag
  w.u(1, 0); // constrained_intra_pred_flag
  w.u(1, 0); // redundant_pic_cnt_present_flag
  return nal(3, 8, w.trailing());
}

/** Y, Cb, Cr (BT.601, limited range) of each palette entry. */
function yuvPalette(palette: readonly (readonly [number, number, number])[]) {
  const y = new Uint8Array(palette.length);
  const cb = new Uint8Array(palette.length);
  const cr = new Uint8Array(palette.length);
  palette.forEach(([r, g, b], i) => {
    y[i] = Math.round(16 + (65.738 * r + 129.057 * g + 25.064 * b) / 256);
    cb[i] = Math.round(128 + (-37.945 * r - 74.494 * g + 112.439 * b) / 256);
    cr[i] = Math.round(128 + (112.439 * r - 94.154 * g - 18.285 * b) / 256);
  });
  return { y, cb, cr };
}

export interface H264Stream {
  width: number;
  height: number;
  /** Sequence and picture parameter sets (for the avcC box). */
  sps: Uint8Array;
  pps: Uint8Array;
  /** Appends a frame; returns its access unit in AVCC form (4-byte length before each NAL) and whether it is a key frame. */
  encode(indexed: Uint8Array): { data: Uint8Array; key: boolean };
}

/**
 * An encoder for frames of `width` × `height` (multiples of 16) drawn with
 * `palette`. Each call compares the frame with the previous one macroblock by
 * macroblock; only changed macroblocks are stored.
 */
export function createH264Stream(
  width: number,
  height: number,
  palette: readonly (readonly [number, number, number])[],
): H264Stream {
  if (width % 16 || height % 16) throw new Error("width and height must be multiples of 16");
  const mbW = width / 16;
  const mbH = height / 16;
  const { y: PY, cb: PCB, cr: PCR } = yuvPalette(palette);
  const spsNal = sps(mbW, mbH);
  const ppsNal = pps();
  let prev: Uint8Array | undefined;
  let frameNum = 0;
  const pcm = new Uint8Array(384);

  /** The 384 PCM bytes of one macroblock: 256 luma, 64 Cb, 64 Cr (4:2:0, chroma averaged over 2×2). */
  function pcmOf(idx: Uint8Array, mx: number, my: number): Uint8Array {
    const x0 = mx * 16;
    const y0 = my * 16;
    let o = 0;
    for (let r = 0; r < 16; r++) {
      const row = (y0 + r) * width + x0;
      for (let c = 0; c < 16; c++) pcm[o++] = PY[idx[row + c]!]!;
    }
    for (const plane of [PCB, PCR]) {
      for (let r = 0; r < 8; r++) {
        const a = (y0 + 2 * r) * width + x0;
        const b = a + width;
        for (let c = 0; c < 8; c++) {
          const k = 2 * c;
          pcm[o++] =
            (plane[idx[a + k]!]! + plane[idx[a + k + 1]!]! + plane[idx[b + k]!]! + plane[idx[b + k + 1]!]! + 2) >> 2;
        }
      }
    }
    return pcm;
  }

  function changed(idx: Uint8Array, mx: number, my: number): boolean {
    for (let r = 0; r < 16; r++) {
      const row = (my * 16 + r) * width + mx * 16;
      for (let c = 0; c < 16; c++) if (idx[row + c] !== prev![row + c]) return true;
    }
    return false;
  }

  function slice(idx: Uint8Array, idr: boolean): Uint8Array {
    const w = new BitWriter();
    w.ue(0); // first_mb_in_slice
    w.ue(idr ? 7 : 5); // slice_type: I or P (every slice of the picture)
    w.ue(0); // pic_parameter_set_id
    w.u(LOG2_MAX_FRAME_NUM, frameNum % (1 << LOG2_MAX_FRAME_NUM));
    if (idr) w.ue(0); // idr_pic_id
    if (!idr) {
      w.u(1, 0); // num_ref_idx_active_override_flag
      w.u(1, 0); // ref_pic_list_modification_flag_l0
    }
    if (idr) {
      w.u(1, 0); // no_output_of_prior_pics_flag
      w.u(1, 0); // long_term_reference_flag
    } else {
      w.u(1, 0); // adaptive_ref_pic_marking_mode_flag
    }
    w.se(0); // slice_qp_delta
    w.ue(1); // disable_deblocking_filter_idc: off (PCM samples are exact)
    let skipped = 0;
    for (let my = 0; my < mbH; my++) {
      for (let mx = 0; mx < mbW; mx++) {
        if (!idr && !changed(idx, mx, my)) {
          skipped++;
          continue;
        }
        if (!idr) {
          w.ue(skipped); // mb_skip_run
          skipped = 0;
        }
        w.ue(idr ? 25 : 30); // mb_type I_PCM (25 in an I slice, 5 + 25 in a P slice)
        w.alignZero(); // pcm_alignment_zero_bit
        w.bytes(pcmOf(idx, mx, my));
      }
    }
    if (skipped > 0) w.ue(skipped);
    return nal(idr ? 3 : 2, idr ? 5 : 1, w.trailing());
  }

  const avcc = (...nals: Uint8Array[]) => {
    const out = new Uint8Array(nals.reduce((a, n) => a + 4 + n.length, 0));
    const dv = new DataView(out.buffer);
    let o = 0;
    for (const n of nals) {
      dv.setUint32(o, n.length);
      out.set(n, o + 4);
      o += 4 + n.length;
    }
    return out;
  };

  return {
    width,
    height,
    sps: spsNal,
    pps: ppsNal,
    encode(indexed: Uint8Array) {
      if (indexed.length !== width * height) throw new Error("frame size mismatch");
      const key = prev === undefined;
      const data = avcc(slice(indexed, key));
      prev = indexed.slice();
      frameNum++;
      return { data, key };
    },
  };
}

/** AVCDecoderConfigurationRecord (ISO 14496-15 §5.3.3.1): the `avcC` box payload. */
export function avcDecoderConfig(spsNal: Uint8Array, ppsNal: Uint8Array): Uint8Array {
  const out = new Uint8Array(11 + spsNal.length + ppsNal.length);
  out.set([1, spsNal[1]!, spsNal[2]!, spsNal[3]!, 0xff, 0xe1], 0); // version, profile, compat, level, 4-byte lengths, 1 SPS
  out[6] = spsNal.length >> 8;
  out[7] = spsNal.length & 0xff;
  out.set(spsNal, 8);
  let o = 8 + spsNal.length;
  out[o++] = 1; // one PPS
  out[o++] = ppsNal.length >> 8;
  out[o++] = ppsNal.length & 0xff;
  out.set(ppsNal, o);
  return out;
}

/** The codec string for the MP4 / HTML `type` (avc1.PPCCLL). */
export const H264_CODEC = `avc1.${[PROFILE_IDC, CONSTRAINTS, LEVEL_IDC].map((n) => n.toString(16).padStart(2, "0")).join("")}`;
