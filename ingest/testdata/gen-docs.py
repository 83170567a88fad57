# Writes the DOCX and PDF test files of TestParseOtherWriters with
# python-docx and reportlab (pip install python-docx reportlab; the PDF
# embeds a subset of DejaVu Sans, found under /usr/share/fonts). pdfminer.six
# reads the PDF back as the same lines. Run in ingest/testdata.
import docx
from docx.shared import Pt
d = docx.Document()
d.add_heading('Zpráva o činnosti', 0)
d.add_paragraph('Úvodní odstavec s českými znaky: příliš žluťoučký kůň úpěl ďábelské ódy.')
d.add_heading('Kapitola 1', level=1)
p = d.add_paragraph('Text s ')
p.add_run('tučným').bold = True
p.add_run(' a ')
p.add_run('kurzívou').italic = True
p.add_run('.')
d.add_paragraph('první položka', style='List Bullet')
d.add_paragraph('druhá položka', style='List Number')
t = d.add_table(rows=2, cols=2)
t.cell(0, 0).text = 'Jméno'; t.cell(0, 1).text = 'Hodnota'
t.cell(1, 0).text = 'Praha'; t.cell(1, 1).text = '1 300 000'
sec = d.sections[0]
sec.header.paragraphs[0].text = 'Záhlaví dokumentu'
sec.footer.paragraphs[0].text = 'Zápatí dokumentu'
p = d.add_paragraph('Řádek jedna')
p.add_run().add_break()
p.add_run('Řádek dva')
d.add_heading('Kapitola 2', level=1)
d.add_paragraph('Závěr.\tTabulátor uvnitř.')
d.save('python-docx.docx')

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas
import glob
fonts = glob.glob('/usr/share/fonts/**/DejaVuSans.ttf', recursive=True)
c = canvas.Canvas('reportlab.pdf', pagesize=A4)
if fonts:
    pdfmetrics.registerFont(TTFont('DejaVu', fonts[0])); fn = 'DejaVu'
else:
    fn = 'Helvetica'
print('font', fn)
c.setFont(fn, 12)
y = 800
for line in ['Zpráva o činnosti', 'Příliš žluťoučký kůň úpěl ďábelské ódy.', 'Druhý řádek textu.', '', 'Nový odstavec po mezeře.']:
    c.drawString(72, y, line); y -= 18
c.showPage()
c.setFont(fn, 12)
c.drawString(72, 800, 'Strana dvě: závěrečné shrnutí.')
c.save()

