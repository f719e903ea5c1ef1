// The A2UI v0.8 Lit renderer reads every class map from a Theme (web_core types.Theme). Only headings and
// captions name classes, all from the renderer's own typography styles (web_core styles/type.js); every
// other map is empty, so the renderer's structural defaults show through.
const none = () => ({});
const field = () => ({ container: {}, element: {}, label: {} });

export const theme = {
  components: {
    AudioPlayer: none(), Button: none(), Card: none(), Column: none(), CheckBox: field(),
    DateTimeInput: field(), Divider: none(),
    Image: { all: {}, icon: {}, avatar: {}, smallFeature: {}, mediumFeature: {}, largeFeature: {}, header: {} },
    Icon: none(), List: none(), Modal: { backdrop: {}, element: {} }, MultipleChoice: field(), Row: none(),
    Slider: field(), Tabs: { container: {}, element: {}, controls: { all: {}, selected: {} } },
    Text: {
      all: {}, body: {},
      h1: { "typography-sz-hm": true, "typography-w-600": true },
      h2: { "typography-sz-hs": true, "typography-w-600": true },
      h3: { "typography-sz-tl": true, "typography-w-600": true },
      h4: { "typography-sz-tm": true, "typography-w-600": true },
      h5: { "typography-sz-ts": true, "typography-w-600": true },
      caption: { "typography-sz-bs": true },
    },
    TextField: field(), Video: none(),
  },
  elements: {
    a: {}, audio: {}, body: {}, button: {}, h1: {}, h2: {}, h3: {}, h4: {}, h5: {}, iframe: {}, input: {},
    p: {}, pre: {}, textarea: {}, video: {},
  },
  markdown: { p: [], h1: [], h2: [], h3: [], h4: [], h5: [], ul: [], ol: [], li: [], a: [], strong: [], em: [] },
};
