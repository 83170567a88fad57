// Package intent is the in-process intent classifier: it is trained from a
// few dozen to a few hundred example utterances per intent and returns
// calibrated probabilities over the intents.
//
// # How it works inside
//
// Each utterance becomes a sparse TF-IDF vector (sublinear term frequency,
// L2-normalized) over folded word unigrams and bigrams and character 2-5
// grams of every word framed by boundary marks, so inflected Czech and
// misspelled English words still share most features. When an Embedder is
// given, the sentence embedding (L2-normalized, scaled by EmbeddingWeight)
// is appended as dense features; unless set, their weight is chosen among
// 1, 2 and 3 by the likelihood of the held-out calibration examples. A
// multinomial logistic regression with L2 regularization is fitted by
// AdaGrad SGD over shuffled examples (fixed seed, so training is
// deterministic).
//
// Confidences are calibrated by temperature scaling: 20% of every intent's
// examples (when there are at least 5) are held out, a first model is fitted
// on the rest, and the softmax temperature that minimizes the negative log
// likelihood of the held-out examples is kept; the final model is then fitted
// on all examples. Out-of-scope detection is left to the caller: a maximum
// probability under its threshold means "none of these".
package intent
